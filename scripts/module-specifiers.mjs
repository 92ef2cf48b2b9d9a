/**
 * The modules an ES module imports, read from its text: `import … from 'x'`, `export … from 'x'` and `import 'x'`,
 * one statement per line start as tsc writes them. Shared by the layer check and the package script.
 */
const IMPORT_STATEMENT = /^\s*(?:import|export)\s[^;'"]*?\sfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]/gm;

/** Every specifier the module's import and re-export statements name, in order. */
export function moduleSpecifiers(source) {
  return [...source.matchAll(IMPORT_STATEMENT)].map(([, from, bare]) => from ?? bare);
}
