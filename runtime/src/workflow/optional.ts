/** `{ [k]: v }` when `v` is defined, else `{}`: spreads an optional field without writing `undefined` (exactOptionalPropertyTypes). */
export function optional<K extends string, V>(k: K, v: V | undefined): { [P in K]?: V } {
  return (v === undefined ? {} : { [k]: v }) as { [P in K]?: V };
}
