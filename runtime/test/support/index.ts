export { SvcdProcess, SVCD_MAIN, type SvcdOptions } from './svcd-process.js';
export { freePort } from './ports.js';
