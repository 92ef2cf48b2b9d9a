/**
 * Orders folder entries by name, compared code unit by code unit (`B.yaml` before `a.yaml`). Not
 * `localeCompare`: its first call sets up ICU's collator, tens of ms of svcd's start here (57–90 ms
 * for one call in a bare `node -e` on a busy VM).
 */
export function byName(a: { readonly name: string }, b: { readonly name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
