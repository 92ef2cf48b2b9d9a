/**
 * The same .proto files under Dapr's package names: `svc.proto.*` moved to `dapr.proto.*`, services optionally
 * renamed. Every reference inside our files is relative to the package (or to google.protobuf), so moving the
 * namespace keeps them resolvable; the field numbers do not change, so the wire format is the same.
 */
import protobuf from 'protobufjs';
import { packageDefinitionFromJson, type PackageDefinition } from './package-definition.js';
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

function daprAliasJson(parsed: protobuf.Root, renames: Readonly<Record<string, string>>): protobuf.INamespace {
  const json = parsed.toJSON() as { nested: Nested };
  const svc = json.nested.svc as { nested: { proto: { nested: Nested } } };
  const { svc: _moved, ...others } = json.nested;
  return { nested: { ...others, dapr: { nested: { proto: { nested: renameServices(svc.nested.proto.nested, renames) } } } } };
}

/** Files already parsed (loadProtoRoot), under Dapr's names, for serving and calling (servedService, serviceClient). */
export function daprAliasRoot(parsed: protobuf.Root, renames: Readonly<Record<string, string>> = {}): protobuf.Root {
  const root = protobuf.Root.fromJSON(daprAliasJson(parsed, renames));
  root.resolveAll();
  return root;
}

/** The package definition under Dapr's names, for reflection. */
export function daprAliasDefinition(files: readonly string[], renames: Readonly<Record<string, string>> = {}): Promise<PackageDefinition> {
  return packageDefinitionFromJson(daprAliasJson(loadProtoRoot(files), renames));
}
