import { createRequire } from 'node:module';
import path from 'node:path';
import type { Options } from '@grpc/proto-loader';

/** The folder holding the `.proto` files: the package's root, found by name so a bundle of svcd finds it too. */
export const PROTO_ROOT = path.dirname(createRequire(import.meta.url).resolve('@svc/proto/package.json'));

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
