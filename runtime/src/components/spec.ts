import { RuntimeError } from '../errors/runtime-error.js';
import { parseDuration } from '../config/parse-values.js';
import { isRecord } from '../util/is-record.js';

export const COMPONENT_API_VERSION = 'svc.io/v1alpha1';
export const COMPONENT_KIND = 'Component';
/** Component categories svcd knows; `spec.type` is `<category>.<name>`. */
export const COMPONENT_CATEGORIES = ['state', 'pubsub', 'bindings', 'secretstores', 'workflow', 'lock', 'configuration'] as const;
export type ComponentCategory = (typeof COMPONENT_CATEGORIES)[number];

/** `spec.metadata[].secretKeyRef`: the value is `key` (default: `name`) of secret `name` in the secret store. */
export interface SecretKeyRef {
  readonly name: string;
  readonly key: string;
}

/** A validated Component document. */
export interface ComponentSpec {
  readonly name: string;
  readonly namespace: string | undefined;
  readonly annotations: Readonly<Record<string, string>>;
  /** Full type, e.g. `state.redis`. */
  readonly type: string;
  readonly category: ComponentCategory;
  readonly version: string;
  readonly ignoreErrors: boolean;
  readonly initTimeoutMs: number | undefined;
  /** `spec.metadata` as name → string value (non-string values are JSON-encoded). */
  readonly metadata: Readonly<Record<string, string>>;
  /** Metadata entries whose value comes from a secret (absent from `metadata` until resolved before the init). */
  readonly secretRefs: Readonly<Record<string, SecretKeyRef>>;
  /** `auth.secretStore`: the secret store `secretRefs` are read from (kubernetes mode: default the namespace's Secrets). */
  readonly secretStore: string | undefined;
  readonly scopes: readonly string[];
  /** Where the document came from, for error messages: `file /r/file.yaml (document 2)` or `kubernetes: ns/name`. */
  readonly source: string;
}

function fail(source: string, field: string, problem: string): never {
  throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', `${source}: ${field} ${problem}`);
}

function stringMap(source: string, field: string, v: unknown): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isRecord(v)) fail(source, field, 'must be a map of strings');
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    if (typeof val !== 'string') fail(source, `${field}.${k}`, 'must be a string');
    out[k] = val;
  }
  return out;
}

/** Is this document a Component of ours? Other kinds are skipped by the loader, with a log line. */
/** Dapr's Component files: the same shape, loaded so teams can move over without rewriting them. */
export const DAPR_COMPONENT_API_VERSION = 'dapr.io/v1alpha1';

export function isComponentDocument(doc: unknown): boolean {
  return isRecord(doc) && (doc.apiVersion === COMPONENT_API_VERSION || doc.apiVersion === DAPR_COMPONENT_API_VERSION) && doc.kind === COMPONENT_KIND;
}

export const isDaprComponentDocument = (doc: unknown): boolean => isRecord(doc) && doc.apiVersion === DAPR_COMPONENT_API_VERSION;

/** Validates one Component document; every message names the source and the field. */
export function parseComponentSpec(doc: unknown, source: string): ComponentSpec {
  if (!isRecord(doc)) fail(source, 'document', 'must be a YAML map');
  const meta = doc.metadata;
  if (!isRecord(meta)) fail(source, 'metadata', 'is required');
  const name = meta.name;
  if (typeof name !== 'string' || name === '') fail(source, 'metadata.name', 'is required');
  if (name.includes('/') || name.includes('%') || name === '.' || name === '..' || /\s/.test(name)) {
    fail(source, 'metadata.name', `'${name}' must be usable as a URL path segment (no '/', '%', spaces, '.' or '..')`);
  }
  if (meta.namespace !== undefined && typeof meta.namespace !== 'string') fail(source, 'metadata.namespace', 'must be a string');

  const spec = doc.spec;
  if (!isRecord(spec)) fail(source, 'spec', 'is required');
  const type = spec.type;
  if (typeof type !== 'string' || !/^[a-z0-9]+\.[A-Za-z0-9._-]+$/.test(type)) {
    fail(source, 'spec.type', `must be '<api>.<name>' (for example state.redis), got ${JSON.stringify(type)}`);
  }
  const category = type.slice(0, type.indexOf('.'));
  if (!(COMPONENT_CATEGORIES as readonly string[]).includes(category)) {
    fail(source, 'spec.type', `has unknown api '${category}' (one of ${COMPONENT_CATEGORIES.join(', ')})`);
  }
  const version = spec.version;
  if (version !== 'v1') fail(source, 'spec.version', `must be 'v1', got ${JSON.stringify(version)}`);
  if (spec.ignoreErrors !== undefined && typeof spec.ignoreErrors !== 'boolean') fail(source, 'spec.ignoreErrors', 'must be true or false');

  let initTimeoutMs: number | undefined;
  if (spec.initTimeout !== undefined) {
    try {
      if (typeof spec.initTimeout !== 'string' && typeof spec.initTimeout !== 'number') throw new Error('must be a duration such as 5s');
      initTimeoutMs = parseDuration(String(spec.initTimeout));
    } catch (err) {
      fail(source, 'spec.initTimeout', (err as Error).message);
    }
  }

  const metadata: Record<string, string> = {};
  const secretRefs: Record<string, SecretKeyRef> = {};
  if (spec.metadata !== undefined && spec.metadata !== null) {
    if (!Array.isArray(spec.metadata)) fail(source, 'spec.metadata', 'must be a list of {name, value}');
    spec.metadata.forEach((entry: unknown, i: number) => {
      const field = `spec.metadata[${i}]`;
      if (!isRecord(entry) || typeof entry.name !== 'string' || entry.name === '') fail(source, `${field}.name`, 'is required');
      if (entry.secretKeyRef !== undefined && entry.secretKeyRef !== null) {
        secretRefs[entry.name] = secretKeyRef(source, `${field}.secretKeyRef`, entry.secretKeyRef);
        return;
      }
      const v = entry.value;
      metadata[entry.name] = typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v);
    });
  }
  const auth = doc.auth ?? {};
  if (!isRecord(auth) || (auth.secretStore !== undefined && typeof auth.secretStore !== 'string')) fail(source, 'auth.secretStore', 'must be the name of a secret store');

  const rawScopes: unknown = doc.scopes ?? [];
  if (!Array.isArray(rawScopes) || rawScopes.some((s) => typeof s !== 'string')) fail(source, 'scopes', 'must be a list of app ids');
  const scopes = rawScopes as string[];

  return {
    name,
    namespace: meta.namespace,
    annotations: stringMap(source, 'metadata.annotations', meta.annotations),
    type,
    category: category as ComponentCategory,
    version,
    ignoreErrors: spec.ignoreErrors === true,
    initTimeoutMs,
    metadata,
    secretRefs,
    secretStore: typeof auth.secretStore === 'string' && auth.secretStore !== '' ? auth.secretStore : undefined,
    scopes,
    source,
  };
}

function secretKeyRef(source: string, field: string, v: unknown): SecretKeyRef {
  if (!isRecord(v) || typeof v.name !== 'string' || v.name === '') fail(source, `${field}.name`, 'is required (the secret to read)');
  if (v.key !== undefined && typeof v.key !== 'string') fail(source, `${field}.key`, 'must be a string');
  return { name: v.name, key: v.key || v.name };
}

/** How errors name a component: `component 'cache' (file /r/cache.yaml)`. */
export function componentLabel(spec: Pick<ComponentSpec, 'name' | 'source'>): string {
  return `component '${spec.name}' (${spec.source})`;
}

/** Empty scopes mean every app may use the component. */
export function isInScope(spec: Pick<ComponentSpec, 'scopes'>, appId: string): boolean {
  return spec.scopes.length === 0 || spec.scopes.includes(appId);
}

/** Case-insensitive metadata lookup (component metadata names are matched without case, as users expect). */
export function metadataValue(spec: Pick<ComponentSpec, 'metadata'>, key: string): string | undefined {
  const wanted = key.toLowerCase();
  for (const [k, v] of Object.entries(spec.metadata)) if (k.toLowerCase() === wanted) return v;
  return undefined;
}
