import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Options } from '@grpc/proto-loader';

/** The folder holding the `.proto` files: dist/src → the workspace root. */
export const PROTO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The one set of proto-loader options of the repository; `npm run gen` generates the types with the same. */
export const LOADER_OPTIONS: Options = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  bytes: Buffer,
  includeDirs: [PROTO_ROOT],
};
