/** A plain object (a YAML or JSON map), not an array or null: what every parser of documents checks first. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
