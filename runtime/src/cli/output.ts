/** How the CLI prints: aligned tables for people, JSON for scripts (`--output json`). */
export type OutputFormat = 'table' | 'json';

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Columns padded to their widest cell; a value longer than `maxWidth` is cut with an ellipsis. */
export function printTable(headers: readonly string[], rows: readonly (readonly string[])[], maxWidth = 60): void {
  const cut = (s: string) => (s.length > maxWidth ? `${s.slice(0, maxWidth - 1)}…` : s);
  const cells = [headers, ...rows].map((r) => r.map((c) => cut(c.replace(/\s+/g, ' '))));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i]?.length ?? 0)));
  for (const r of cells) process.stdout.write(`${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}\n`);
}

/** `key: value` lines, keys aligned. */
export function printFacts(facts: readonly (readonly [string, string | undefined])[]): void {
  const shown = facts.filter((f): f is readonly [string, string] => f[1] !== undefined);
  const width = Math.max(...shown.map(([k]) => k.length));
  for (const [k, v] of shown) process.stdout.write(`${`${k}:`.padEnd(width + 2)}${v}\n`);
}
