/**
 * proto-loader's package definitions: a descriptor of every message, which only gRPC server reflection (and
 * components serving it) needs. proto-loader is imported on first use: loading it builds protobuf's whole
 * descriptor schema, about a tenth of svcd's start-up, for what a tool asks for now and then.
 */
import type { fromJSON, loadSync, PackageDefinition } from '@grpc/proto-loader';
import type protobuf from 'protobufjs';
import { LOADER_OPTIONS } from './proto-root.js';

export type { PackageDefinition };

let protoLoader: Promise<{ loadSync: typeof loadSync; fromJSON: typeof fromJSON }> | undefined;

// `default`: the bundle of svcd gives a CommonJS module only as its default export.
const imported = () => (protoLoader ??= import('@grpc/proto-loader').then((m) => m.default));

/** The package definition of `files` (under the proto root), as `protoLoader.loadSync` makes it. */
export async function packageDefinitionOf(files: string | readonly string[]): Promise<PackageDefinition> {
  return (await imported()).loadSync(typeof files === 'string' ? files : [...files], LOADER_OPTIONS);
}

/** The package definition of a parsed (and possibly rewritten) namespace, e.g. `root.toJSON()`. */
export async function packageDefinitionFromJson(json: protobuf.INamespace): Promise<PackageDefinition> {
  return (await imported()).fromJSON(json, LOADER_OPTIONS);
}
