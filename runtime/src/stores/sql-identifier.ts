import { createHash } from 'node:crypto';
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

/** PostgreSQL cuts longer identifiers, which could make two companion tables one. */
const MAX_IDENTIFIER_LENGTH = 63;

/**
 * The quoted name of a companion table of `name` (validated as by `quotedTableName` with a schema allowed):
 * `<table>_<suffix>` in the same schema. A name too long for that keeps a prefix of the table name plus a hash
 * of all of it, so companions of different tables never meet.
 */
export function quotedCompanionTableName(name: string, suffix: string): string {
  quotedTableName(name, { allowSchema: true });
  const parts = name.split('.');
  const table = parts.pop()!;
  let companion = `${table}_${suffix}`;
  if (companion.length > MAX_IDENTIFIER_LENGTH) {
    const hash = createHash('sha1').update(table).digest('hex').slice(0, 8);
    companion = `${table.slice(0, MAX_IDENTIFIER_LENGTH - suffix.length - hash.length - 2)}_${hash}_${suffix}`;
  }
  return [...parts, companion].map((p) => `"${p}"`).join('.');
}
