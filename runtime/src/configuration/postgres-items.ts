/**
 * Rows of Dapr's PostgreSQL configuration table (`key`, `value`, `version`, `metadata` JSON) as configuration
 * items: read with `SELECT` (by the store, and by a watch on its LISTEN connection) or carried by the trigger's
 * notifications.
 */
import type pg from 'pg';
import { DELETED_ITEM, type ConfigurationItem, type ConfigurationItems } from '../components/contracts/configuration-store.js';

interface Row {
  key: string;
  value: string | null;
  version: string | null;
  metadata: unknown;
}

/** The metadata column's JSON object, its values as strings. */
function itemOf(row: Pick<Row, 'value' | 'version' | 'metadata'>): ConfigurationItem {
  const raw = row.metadata !== null && typeof row.metadata === 'object' ? (row.metadata as Record<string, unknown>) : {};
  const metadata = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  return { value: row.value ?? '', version: row.version ?? '', metadata };
}

/** The items of `keys` that exist in `table` (an identifier checked by the caller), or every item when none are named. */
export async function selectItems(db: Pick<pg.ClientBase, 'query'>, table: string, keys: readonly string[]): Promise<ConfigurationItems> {
  const sql = `SELECT key, value, version, metadata FROM ${table}`;
  const { rows } = keys.length === 0 ? await db.query<Row>(sql) : await db.query<Row>(`${sql} WHERE key = ANY($1)`, [keys]);
  return Object.fromEntries(rows.map((r) => [r.key, itemOf(r)]));
}

/** The trigger's `{"action": "INSERT"|"UPDATE"|"DELETE", "data": row}`; a deleted row is reported empty. */
export function parseNotification(payload: string | undefined): { key: string; item: ConfigurationItem } | undefined {
  try {
    const n = JSON.parse(payload ?? '') as { action?: unknown; data?: Partial<Row> & Record<string, unknown> };
    const data = n.data;
    if (!data || typeof data.key !== 'string') return undefined;
    const item = n.action === 'DELETE' ? DELETED_ITEM : itemOf({ value: data.value ?? null, version: data.version ?? null, metadata: data.metadata ?? null });
    return { key: data.key, item };
  } catch {
    return undefined;
  }
}
