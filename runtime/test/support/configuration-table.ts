/**
 * The configuration table and change trigger of docs/configuration-api.md, for `table` and notify `channel`: what a
 * user installs for `configuration.postgresql` (the tests run the documented SQL, not a variant of it).
 */
export function configurationTableSql(table: string, channel: string): string {
  return `
CREATE TABLE IF NOT EXISTS ${table} (
  key VARCHAR NOT NULL PRIMARY KEY,
  value VARCHAR NOT NULL,
  version VARCHAR NOT NULL,
  metadata JSON
);

CREATE OR REPLACE FUNCTION ${table}_notify() RETURNS TRIGGER AS $$
BEGIN
  PERFORM pg_notify('${channel}', json_build_object(
    'table', TG_TABLE_NAME,
    'action', TG_OP,
    'data', row_to_json(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END)
  )::text);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE TRIGGER ${table}_changes
AFTER INSERT OR UPDATE OR DELETE ON ${table}
FOR EACH ROW EXECUTE FUNCTION ${table}_notify();
`;
}
