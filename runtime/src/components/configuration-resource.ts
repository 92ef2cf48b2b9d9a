/**
 * The `Configuration` resource (the reference system's Configuration CRD shape): the settings of one app's sidecar
 * that are not components. svcd keeps what it uses: access control for service invocation (validated here), the
 * name resolution component's settings and tracing (kept raw: their users validate them), and the secret stores'
 * access scopes.
 */
import { configurationInvalid } from '../errors/catalogue.js';
import { isRecord } from '../util/is-record.js';
import { parseAccessControl, type AccessControl } from './access-control-spec.js';
import { parseSecretScopes, type SecretScope } from './secret-scopes-spec.js';

export const CONFIGURATION_KIND = 'Configuration';
const API_VERSIONS = new Set(['svc.io/v1alpha1', 'dapr.io/v1alpha1']);

export interface NameResolutionSpec {
  /** The name resolution component, e.g. `kubernetes`. */
  readonly component: string;
  readonly configuration: Readonly<Record<string, unknown>>;
}

/** A validated Configuration document. */
export interface RuntimeConfiguration {
  readonly name: string;
  /** Where it came from, for messages: `file /r/config.yaml` or `kubernetes: ns/name`. */
  readonly source: string;
  /** Undefined: no access control, every caller may invoke every method. */
  readonly accessControl: AccessControl | undefined;
  readonly nameResolution: NameResolutionSpec | undefined;
  readonly tracing: Readonly<Record<string, unknown>> | undefined;
  /** `spec.secrets.scopes`: at most one per store; a store without one serves every secret. */
  readonly secretScopes: readonly SecretScope[];
}

export function isConfigurationDocument(doc: unknown): boolean {
  return isRecord(doc) && doc.kind === CONFIGURATION_KIND && API_VERSIONS.has(String(doc.apiVersion));
}

/** `metadata.name` of a Configuration document, or undefined when it has none (the parser then says so). */
export function configurationName(doc: unknown): string | undefined {
  const name = isRecord(doc) && isRecord(doc.metadata) ? doc.metadata.name : undefined;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

function optionalMap(source: string, field: string, v: unknown): Record<string, unknown> | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isRecord(v)) throw configurationInvalid(source, field, 'must be a map');
  return v;
}

function nameResolution(source: string, v: unknown): NameResolutionSpec | undefined {
  const spec = optionalMap(source, 'spec.nameResolution', v);
  if (spec === undefined) return undefined;
  if (typeof spec.component !== 'string' || spec.component === '') throw configurationInvalid(source, 'spec.nameResolution.component', 'is required (the name resolution component, e.g. kubernetes)');
  return { component: spec.component, configuration: optionalMap(source, 'spec.nameResolution.configuration', spec.configuration) ?? {} };
}

/** Validates one Configuration document; every error names the source and the field. */
export function parseConfiguration(doc: unknown, source: string): RuntimeConfiguration {
  if (!isConfigurationDocument(doc)) throw configurationInvalid(source, 'document', `must be kind: ${CONFIGURATION_KIND} with apiVersion ${[...API_VERSIONS].join(' or ')}`);
  const d = doc as Record<string, unknown>;
  const name = configurationName(d);
  if (name === undefined) throw configurationInvalid(source, 'metadata.name', 'is required');
  const spec = optionalMap(source, 'spec', d.spec) ?? {};
  return {
    name,
    source,
    accessControl: spec.accessControl === undefined || spec.accessControl === null ? undefined : parseAccessControl(spec.accessControl, source),
    nameResolution: nameResolution(source, spec.nameResolution),
    tracing: optionalMap(source, 'spec.tracing', spec.tracing),
    secretScopes: parseSecretScopes(source, spec.secrets),
  };
}
