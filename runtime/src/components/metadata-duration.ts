import { parseDuration } from '../config/parse-values.js';
import { RuntimeError } from '../errors/runtime-error.js';

/** A duration from component metadata (`5s`, `250ms`), `fallbackMs` when absent; a bad one fails the init naming it. */
export function metadataDuration(get: (name: string) => string | undefined, name: string, fallbackMs: number): number {
  const text = get(name);
  if (!text) return fallbackMs;
  try {
    return parseDuration(text);
  } catch (err) {
    throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', `metadata ${name} '${text}': ${(err as Error).message}`);
  }
}
