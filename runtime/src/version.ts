import { createRequire } from 'node:module';

/** The runtime version, from the package manifest (found by package name, so it holds in the bundle too). */
export const RUNTIME_VERSION: string = (createRequire(import.meta.url)('@svc/runtime/package.json') as { version: string }).version;
