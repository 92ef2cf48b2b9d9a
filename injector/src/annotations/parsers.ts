/** Parsers for pod annotation values. Each returns the typed value or throws an Error whose message is the reason. */

const TRUTHY = ['y', 'yes', 'true', 't', 'on', '1'];
const FALSY = ['n', 'no', 'false', 'f', 'off', '0'];

export function parseBoolean(raw: string): boolean {
  const t = raw.trim().toLowerCase();
  if (TRUTHY.includes(t)) return true;
  if (FALSY.includes(t)) return false;
  throw new Error(`'${raw}' is not a boolean (true or false)`);
}

export function parseNonNegativeInt(raw: string): number {
  const t = raw.trim();
  if (!/^\d+$/.test(t) || Number(t) > 2_147_483_647) throw new Error(`'${raw}' is not a whole number >= 0`);
  return Number(t);
}

export function parsePositiveInt(raw: string): number {
  const n = parseNonNegativeInt(raw);
  if (n < 1) throw new Error(`'${raw}' must be at least 1`);
  return n;
}

export function parsePort(raw: string): number {
  const n = /^\s*\d+\s*$/.test(raw) ? Number(raw.trim()) : NaN;
  if (!(n >= 1 && n <= 65535)) throw new Error(`'${raw}' is not a port number (1-65535)`);
  return n;
}

export function optional<T>(parse: (raw: string) => T): (raw: string) => T | undefined {
  return (raw) => (raw.trim() === '' ? undefined : parse(raw));
}

export function parseText(raw: string): string {
  return raw.trim();
}

/** A Go-style duration as svcd reads it (`500ms`, `5s`, `1m30s`). */
export function parseDuration(raw: string): string {
  const t = raw.trim();
  if (!/^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$/.test(t)) throw new Error(`'${raw}' is not a duration (examples: 500ms, 5s, 1m30s)`);
  return t;
}

/** A Kubernetes resource quantity (`250m`, `1`, `128Mi`, `1e3`). */
export function parseQuantity(raw: string): string {
  const t = raw.trim();
  if (!/^[+]?(\d+(\.\d*)?|\.\d+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+)?$/.test(t)) {
    throw new Error(`'${raw}' is not a Kubernetes quantity (examples: 100m, 0.5, 128Mi, 1Gi)`);
  }
  return t;
}

/** A byte size as svcd's --max-request-size accepts it (`4Mi`, `512Ki`, `1048576`). */
export function parseByteSize(raw: string): string {
  const t = raw.trim();
  if (!/^\d+(\.\d+)?\s*(b|k|kb|ki|kib|m|mb|mi|mib|g|gb|gi|gib)?$/i.test(t)) throw new Error(`'${raw}' is not a size (examples: 4Mi, 512Ki, 1048576)`);
  return t;
}

export function parseList(raw: string): string[] {
  return raw.split(',').map((s) => s.trim()).filter(Boolean);
}

const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/** `K=V,K2=V2` → env entries; values may contain `=`, not `,`. */
export function parseEnvList(raw: string): Array<{ name: string; value: string }> {
  return parseList(raw).map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq).trim();
    if (eq < 0 || !ENV_NAME.test(name)) throw new Error(`'${pair}' is not NAME=value with a valid env var name`);
    return { name, value: pair.slice(eq + 1) };
  });
}

export function parseAbsolutePath(raw: string): string {
  const t = raw.trim();
  if (!t.startsWith('/') || t.includes('..') || t.includes(':')) throw new Error(`'${raw}' must be an absolute path without '..' or ':'`);
  return t.length > 1 ? t.replace(/\/+$/, '') : t;
}

export function oneOf<T extends string>(choices: readonly T[]): (raw: string) => T {
  return (raw) => {
    const t = raw.trim();
    if (!(choices as readonly string[]).includes(t)) throw new Error(`'${raw}' is not one of ${choices.join(', ')}`);
    return t as T;
  };
}

/** `<app-id>` must be usable as a DNS-1123 label (it becomes a label value and part of names), at most 63 characters. */
export function parseAppId(raw: string): string {
  const t = raw.trim();
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(t) || t.length > 63) {
    throw new Error(`'${raw}' is not a valid app id (lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters)`);
  }
  return t;
}
