import { createRequire } from 'node:module';

/** The runtime version, from the package manifest (dist/src/version.js → runtime/package.json). */
export const RUNTIME_VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
