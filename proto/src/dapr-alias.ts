/**
 * The same .proto files under Dapr's package names: `svc.proto.*` moved to `dapr.proto.*`, services optionally
 * renamed. Every reference inside our files is relative to the package (or to google.protobuf), so moving the
 * namespace keeps them resolvable; the field numbers do not change, so the wire format is the same.
 */
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import path from 'node:path';
import { LOADER_OPTIONS, PROTO_ROOT } from './proto-root.js';

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
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(PROTO_ROOT, target));
  root.loadSync([...files], { keepCase: LOADER_OPTIONS.keepCase });
  const json = root.toJSON() as { nested: Nested };
  const svc = json.nested.svc as { nested: { proto: { nested: Nested } } };
  const { svc: _moved, ...others } = json.nested;
  const aliased = { nested: { ...others, dapr: { nested: { proto: { nested: renameServices(svc.nested.proto.nested, renames) } } } } };
  return protoLoader.fromJSON(aliased, LOADER_OPTIONS);
}
