/**
 * Keeps the values of a Component's secret references out of what its failed init says: a factory's own message
 * may quote a metadata value (`cannot connect to Redis at <redisHost>`) that came from a secret.
 */
import { RuntimeError, ensureError } from '../errors/runtime-error.js';
import type { ComponentSpec } from './spec.js';

const REDACTED = '[secret]';

/** The values `spec`'s secret references resolved to, as the prepared spec `ready` holds them. */
export function resolvedSecretValues(spec: ComponentSpec, ready: ComponentSpec): string[] {
  return Object.keys(spec.secretRefs)
    .map((entry) => ready.metadata[entry])
    .filter((value): value is string => value !== undefined && value !== '');
}

/**
 * `err` with every one of `values` in its message replaced; when one was there, a new error of the same code
 * without the cause (whose own message may quote it too).
 */
export function withoutSecrets(err: unknown, values: readonly string[]): Error {
  const error = ensureError(err);
  const message = error.message;
  // Longest first: a value that holds another is replaced whole.
  const redacted = [...values].sort((a, b) => b.length - a.length).reduce((text, value) => text.split(value).join(REDACTED), message);
  if (redacted === message) return error;
  return new RuntimeError(err instanceof RuntimeError ? err.code : 'ERR_COMPONENT_INIT', redacted);
}
