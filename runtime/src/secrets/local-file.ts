/**
 * `secretstores.local.file`: secrets from a JSON file, read once when the component starts (as the reference
 * system does; a changed file needs a restart). Nested objects become keys joined by `nestedSeparator`
 * (`{"db": {"password": "x"}}` → `db:password`); with `multiValued: "true"` each top-level key is one secret
 * holding the flattened values below it instead.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Secret, SecretStore } from '../components/contracts/secret-store.js';
import { RuntimeError } from '../errors/runtime-error.js';
import { isRecord } from '../util/is-record.js';

export interface LocalFileOptions {
  /** The file, absolute or relative to a resources path. */
  readonly secretsFile: string;
  readonly nestedSeparator: string;
  readonly multiValued: boolean;
}

function invalid(problem: string): RuntimeError {
  return new RuntimeError('ERR_COMPONENT_SPEC_INVALID', problem);
}

export function localFileOptions(get: (name: string) => string | undefined): LocalFileOptions {
  const secretsFile = get('secretsFile');
  if (!secretsFile) throw invalid('metadata secretsFile is required (a JSON file, absolute or relative to the resources path)');
  const multiValued = (get('multiValued') ?? 'false').toLowerCase();
  if (multiValued !== 'true' && multiValued !== 'false') throw invalid(`metadata multiValued must be true or false, got ${JSON.stringify(multiValued)}`);
  return { secretsFile, nestedSeparator: get('nestedSeparator') || ':', multiValued: multiValued === 'true' };
}

/** The file itself, or the first resources path holding it (the first one when none does, for the error). */
function locate(file: string, resourcesPaths: readonly string[]): string {
  if (path.isAbsolute(file)) return file;
  const candidates = resourcesPaths.map((dir) => path.resolve(dir, file));
  return candidates.find((p) => existsSync(p)) ?? candidates[0] ?? path.resolve(file);
}

/** Flattens nested maps into `prefix<sep>key` entries; numbers and booleans keep their JSON text. */
function flatten(value: unknown, prefix: string, sep: string, into: Record<string, string>): Record<string, string> {
  if (isRecord(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix === '' ? k : `${prefix}${sep}${k}`, sep, into);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => flatten(v, prefix === '' ? String(i) : `${prefix}${sep}${i}`, sep, into));
  } else {
    into[prefix] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return into;
}

export class LocalFileSecretStore implements SecretStore {
  /** Secret name → its values; a map, so no key (`../x`, `__proto__`) reaches anything but these entries. */
  readonly #secrets: ReadonlyMap<string, Secret>;

  private constructor(secrets: ReadonlyMap<string, Secret>) {
    this.#secrets = secrets;
  }

  static open(opts: LocalFileOptions, resourcesPaths: readonly string[]): LocalFileSecretStore {
    const file = locate(opts.secretsFile, resourcesPaths);
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      // JSON.parse quotes the text around a syntax error, which may be a secret: say only where it failed.
      const reason = err instanceof SyntaxError ? 'not valid JSON' : (err as Error).message;
      throw new RuntimeError('ERR_COMPONENT_INIT', `cannot read secrets file ${file}: ${reason}`);
    }
    if (!isRecord(parsed)) throw new RuntimeError('ERR_COMPONENT_INIT', `secrets file ${file} must hold a JSON object`);
    const secrets = new Map<string, Secret>();
    if (opts.multiValued) {
      for (const [name, value] of Object.entries(parsed)) secrets.set(name, isRecord(value) ? flatten(value, '', opts.nestedSeparator, {}) : flatten(value, name, opts.nestedSeparator, {}));
    } else {
      for (const [name, value] of Object.entries(flatten(parsed, '', opts.nestedSeparator, {}))) secrets.set(name, { [name]: value });
    }
    return new LocalFileSecretStore(secrets);
  }

  getSecret(key: string): Promise<Secret> {
    const secret = this.#secrets.get(key);
    return secret ? Promise.resolve(secret) : Promise.reject(new Error(`secret ${key} not found`));
  }

  bulkGetSecret(): Promise<Readonly<Record<string, Secret>>> {
    return Promise.resolve(Object.fromEntries(this.#secrets));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
