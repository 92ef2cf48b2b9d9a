/**
 * `spec.secrets.scopes` of a Configuration: which secrets of each store the app may read through the secrets API
 * (docs/secrets.md). Parsed and validated here at start-up; the decision per key is secrets/scopes.ts.
 */
import { configurationInvalid } from '../errors/catalogue.js';
import { isRecord } from '../util/is-record.js';

export interface SecretScope {
  readonly storeName: string;
  readonly defaultAccess: 'allow' | 'deny';
  readonly allowedSecrets: readonly string[];
  readonly deniedSecrets: readonly string[];
}

function names(source: string, field: string, v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw configurationInvalid(source, field, 'must be a list of secret names');
  return v as string[];
}

function scope(source: string, field: string, v: unknown): SecretScope {
  if (!isRecord(v)) throw configurationInvalid(source, field, 'must be a map with storeName, defaultAccess, allowedSecrets, deniedSecrets');
  if (typeof v.storeName !== 'string' || v.storeName === '') throw configurationInvalid(source, `${field}.storeName`, 'is required');
  // The reference system compares defaultAccess without case, and anything but deny allows.
  const given = v.defaultAccess ?? '';
  const access = given === '' ? 'allow' : typeof given === 'string' ? given.toLowerCase() : given;
  if (access !== 'allow' && access !== 'deny') throw configurationInvalid(source, `${field}.defaultAccess`, `must be allow or deny, got ${JSON.stringify(v.defaultAccess)}`);
  return {
    storeName: v.storeName,
    defaultAccess: access,
    allowedSecrets: names(source, `${field}.allowedSecrets`, v.allowedSecrets),
    deniedSecrets: names(source, `${field}.deniedSecrets`, v.deniedSecrets),
  };
}

/** `spec.secrets` → its scopes (none: every secret of every store may be read). */
export function parseSecretScopes(source: string, v: unknown): SecretScope[] {
  if (v === undefined || v === null) return [];
  if (!isRecord(v)) throw configurationInvalid(source, 'spec.secrets', 'must be a map with scopes');
  const scopes = v.scopes ?? [];
  if (!Array.isArray(scopes)) throw configurationInvalid(source, 'spec.secrets.scopes', 'must be a list');
  const parsed = scopes.map((s, i) => scope(source, `spec.secrets.scopes[${i}]`, s));
  const seen = new Set<string>();
  for (const s of parsed) {
    if (seen.has(s.storeName)) throw configurationInvalid(source, 'spec.secrets.scopes', `names store ${s.storeName} twice`);
    seen.add(s.storeName);
  }
  return parsed;
}
