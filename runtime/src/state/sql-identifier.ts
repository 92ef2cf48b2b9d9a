import { RuntimeError } from '../errors/runtime-error.js';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Validates a table name from component metadata and returns it double-quoted for SQL text. Table names cannot
 * be bound as parameters, so only plain identifiers (optionally `schema.table`) are accepted.
 */
export function quotedTableName(name: string, opts: { allowSchema: boolean }): string {
  const parts = opts.allowSchema ? name.split('.') : [name];
  if (parts.length > 2 || !parts.every((p) => IDENTIFIER.test(p))) {
    const form = opts.allowSchema ? 'an identifier or schema.identifier' : 'an identifier';
    throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', `metadata tableName '${name}' must be ${form} (letters, digits, '_')`);
  }
  return parts.map((p) => `"${p}"`).join('.');
}
