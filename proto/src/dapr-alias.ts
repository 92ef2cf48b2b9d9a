/**
 * The same .proto files under Dapr's package names: `svc.proto.*` moved to `dapr.proto.*`, services optionally
 * renamed. Every reference inside our files is relative to the package (or to google.protobuf), so moving the
 * namespace keeps them resolvable; the field numbers do not change, so the wire format is the same.
 */
import * as protoLoader from '@grpc/proto-loader';
import type protobuf from 'protobufjs';
import { LOADER_OPTIONS } from './proto-root.js';
import { loadProtoRoot } from './served-service.js';

type Nested = Record<string, protobuf.AnyNestedObject & { nested?: Nested; methods?: unknown }>;

function renameServices(nested: Nested, renames: Readonly<Record<string, string>>): Nested {
  const out: Nested = {};
  for (const [name, node] of Object.entries(nested)) {
    const renamed = node.methods !== undefined && renames[name] ? renames[name] : name;
    out[renamed] = node.nested ? { ...node, nested: renameServices(node.nested, renames) } : node;
  }
  return out;
}

export function daprAliasDefinition(files: readonly string[], renames: Readonly<Record<string, string>> = {}): protoLoader.PackageDefinition {
  const json = loadProtoRoot(files).toJSON() as { nested: Nested };
  const svc = json.nested.svc as { nested: { proto: { nested: Nested } } };
  const { svc: _moved, ...others } = json.nested;
  const aliased = { nested: { ...others, dapr: { nested: { proto: { nested: renameServices(svc.nested.proto.nested, renames) } } } } };
  return protoLoader.fromJSON(aliased, LOADER_OPTIONS);
}
