/**
 * The layers of runtime/src (docs/architecture.md), checked over the TypeScript import graph: every import
 * (type-only ones included) goes to the importer's own folder or to a folder of a lower rank, no two modules
 * import each other through any path (no circles), and no source file is longer than MAX_LINES. Run by
 * `npm run lint` (`make lint`); `--report` prints the graph's figures without failing.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { moduleSpecifiers } from './module-specifiers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const srcIndex = process.argv.indexOf('--src');
/** runtime/src, or another tree given with `--src` (the test checks that a deliberate violation fails). */
const src = srcIndex > 0 ? path.resolve(process.argv[srcIndex + 1]) : path.join(root, 'runtime', 'src');
const MAX_LINES = 450;

/**
 * Top to bottom. A folder (or a file at the top of src/) imports only from its own folder and from folders of a
 * lower rank; folders that share a rank do not import each other.
 */
const LAYERS = [
  ['wiring', 9, ['main.ts', 'index.ts', 'cli', 'launcher']],
  ['wiring: the built-in components and resources', 8.5, ['builtins.ts', 'runtime-resources.ts']],
  ['transports', 8, ['api']],
  ['building block views', 7, ['metadata']],
  ['building blocks', 6, ['workflow', 'jobs']],
  ['building blocks', 5, ['actors']],
  ['building blocks', 4, ['pubsub', 'bindings', 'invocation', 'secrets', 'lock', 'configuration']],
  ['building blocks', 3, ['state']],
  ['channels', 2.5, ['app', 'internal', 'delivery', 'resiliency']],
  ['components', 2, ['components']],
  ['store connections', 1, ['stores']],
  ['foundation', 0.5, ['util', 'metrics']],
  ['foundation', 0.4, ['log']],
  ['foundation', 0.3, ['config']],
  ['foundation', 0.2, ['errors']],
  ['foundation', 0.1, ['version.ts']],
];
const rankOf = new Map(LAYERS.flatMap(([, rank, folders]) => folders.map((f) => [f, rank])));

/** `runtime/src/<folder>/…` → folder (a file at the top: its own name). */
const folderOf = (file) => path.relative(src, file).split(path.sep)[0];

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** The relative imports of a module, as files (`./x.js` → `./x.ts`). */
function importsOf(file, source) {
  const found = [];
  for (const specifier of moduleSpecifiers(source)) {
    if (specifier.startsWith('.')) found.push(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
  }
  return found;
}

const files = sourceFiles(src);
const graph = new Map();
const problems = [];
const upward = [];
const long = [];
for (const file of files) {
  const source = readFileSync(file, 'utf8');
  const lines = source.split('\n').length;
  if (lines > MAX_LINES) long.push(`${path.relative(src, file)}: ${lines} lines`);
  const folder = folderOf(file);
  if (!rankOf.has(folder)) problems.push(`${path.relative(src, file)}: folder '${folder}' has no layer (add it to LAYERS in scripts/check-layers.mjs and docs/architecture.md)`);
  const targets = importsOf(file, source);
  graph.set(file, targets);
  for (const target of targets) {
    const to = folderOf(target);
    if (to === folder) continue;
    const [a, b] = [rankOf.get(folder), rankOf.get(to)];
    if (a !== undefined && b !== undefined && b >= a) upward.push(`${path.relative(src, file)} → ${path.relative(src, target)} (${folder} may not import ${to})`);
  }
}

/** Circles: the strongly connected components of more than one module (Tarjan). */
function circles() {
  let index = 0;
  const stack = [];
  const state = new Map();
  const found = [];
  const visit = (v) => {
    const s = { index, low: index, onStack: true };
    index++;
    state.set(v, s);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      const t = state.get(w);
      if (t === undefined) {
        visit(w);
        s.low = Math.min(s.low, state.get(w).low);
      } else if (t.onStack) s.low = Math.min(s.low, t.index);
    }
    if (s.low === s.index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        state.get(w).onStack = false;
        component.push(path.relative(src, w));
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!state.has(v)) visit(v);
  return found;
}
const circled = circles();

const report = process.argv.includes('--report');
const print = (title, items) => items.length > 0 && process.stdout.write(`${title} (${items.length}):\n${items.map((i) => `  ${i}`).join('\n')}\n`);
print('imports to a higher or equal layer', upward);
print('import circles', circled.map((c) => c.join(' ↔ ')));
print(`files over ${MAX_LINES} lines`, long);
print('problems', problems);
const failed = upward.length + circled.length + long.length + problems.length > 0;
process.stdout.write(`layers: ${files.length} modules, ${[...graph.values()].reduce((n, t) => n + t.length, 0)} imports, ${upward.length} upward, ${circled.length} circles, ${long.length} files over ${MAX_LINES} lines\n`);
if (failed && !report) process.exitCode = 1;
