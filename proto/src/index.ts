export * from './proto-root.js';
export * from './components.js';
export * from './reflection.js';
export * from './rich-status.js';
export * from './durabletask.js';
export * from './work-item-encoding.js';
export * from './work-answer-decoding.js';
