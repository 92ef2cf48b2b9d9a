/**
 * Bundles svcd (dist/src/main.js, built by tsc) into dist/bundle/: its modules and their dependencies in a few
 * files, so starting svcd resolves and reads a handful of files instead of about 470 (module loading was half of
 * its start-up time). What svcd imports only when it needs it (the Redis, PostgreSQL and NATS components, the
 * Kubernetes loader) stays in chunks of its own, loaded on first use. better-sqlite3 is a native addon and stays
 * in node_modules, as does the WAL checkpoint worker (a file of its own, started by path).
 */
import { build } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const runtimeDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// A bundle is ESM, where CommonJS dependencies find neither `require` nor `__dirname`. `require` comes from
// createRequire; `__dirname`/`__filename` are rewritten per file (below) to the file's own folder in node_modules,
// found when the expression runs, so a dependency that reads a file beside itself (the reflection protos) still finds it.
const banner = `import { createRequire as __svcCreateRequire } from 'node:module';
import { existsSync as __svcExists } from 'node:fs';
import { join as __svcJoin } from 'node:path';
const require = __svcCreateRequire(import.meta.url);
const __svcPackagePath = (pkg, rest) => {
  const root = (require.resolve.paths(pkg) ?? []).find((dir) => __svcExists(__svcJoin(dir, pkg, 'package.json')));
  if (root === undefined) throw new Error('svcd bundle: package ' + pkg + ' not found');
  return __svcJoin(root, pkg, rest);
};`;

/**
 * `node_modules/<pkg>/<rest>` of a path, from the outermost node_modules: `rest` keeps any nested
 * `node_modules/…` (a dependency's own copy of a package), so the path found at run time is that copy's.
 * Undefined for a file outside node_modules.
 */
function packagePathOf(file) {
  const match = /^(.*?[\\/]node_modules[\\/])((?:@[^\\/]+[\\/])?[^\\/]+)[\\/](.*)$/.exec(file);
  return match ? { pkg: match[2].replaceAll('\\', '/'), rest: match[3].replaceAll('\\', '/') } : undefined;
}

const fileLocations = {
  name: 'file-locations',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/].*\.[cm]?js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('__dirname') && !source.includes('__filename')) return undefined;
      const where = packagePathOf(args.path);
      if (!where) return undefined;
      const dir = path.posix.dirname(where.rest);
      const contents = source
        .replaceAll(/\b__dirname\b/g, `__svcPackagePath(${JSON.stringify(where.pkg)}, ${JSON.stringify(dir)})`)
        .replaceAll(/\b__filename\b/g, `__svcPackagePath(${JSON.stringify(where.pkg)}, ${JSON.stringify(where.rest)})`);
      return { contents, loader: 'js' };
    });
  },
};

const outdir = path.join(runtimeDir, 'dist/bundle');
await rm(outdir, { recursive: true, force: true }); // chunk names carry a content hash: old ones would pile up
await build({
  entryPoints: [path.join(runtimeDir, 'dist/src/main.js')],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3'],
  banner: { js: banner },
  plugins: [fileLocations],
  // Less to scan at every start; identifiers stay, so stack traces still name functions.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});
