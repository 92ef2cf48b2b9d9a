/**
 * Bundles svcd (dist/src/main.js, built by tsc) into dist/bundle/svcd.cjs: its modules and their dependencies in
 * one CommonJS script, so starting svcd reads one file instead of about 470, and then a V8 code cache of it
 * (svcd.cjs.code-cache, made by make-code-cache.mjs from a start of svcd), which src/launcher/svcd-bundle.cts
 * compiles it with. CommonJS because Node 20 takes a code cache only for scripts. What svcd needs only on use
 * (the Redis, PostgreSQL and NATS clients) is in the script but runs on first use. The Kubernetes client, a
 * third of the whole, is only for Kubernetes mode: a script of its own in dist/bundle/vendor/, loaded then.
 * better-sqlite3's JavaScript is in the script; its native addon stays in node_modules, opened by path
 * (stores/sqlite-database.ts), as does the WAL checkpoint worker (a file of its own, started by path). The `svc`
 * CLI (dist/src/cli/main.js) is bundled the same way into dist/bundle/svc.cjs, so the installable package
 * (scripts/package.mjs) carries two scripts and not svcd's dependency tree. First, each
 * `.proto` is parsed once and written as JSON (@svc/proto's writeParsedRoots), which svcd loads instead of parsing
 * the text at every start.
 */
import { writeParsedRoots } from '@svc/proto';
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const runtimeDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(runtimeDir, 'dist/bundle');

// The sources are ES modules: strict mode (which they assume), and `import.meta.url` as the script's own URL.
// `__dirname`/`__filename` of a dependency are rewritten per file (below) to the file's own folder in node_modules,
// found when the expression runs, so a dependency that reads a file beside itself (the reflection protos) finds it.
const banner = `'use strict';
const __svcImportMetaUrl = require('node:url').pathToFileURL(__filename).href;
const __svcPackagePath = (pkg, rest) => {
  const { existsSync } = require('node:fs');
  const { join } = require('node:path');
  const root = (require.resolve.paths(pkg) ?? []).find((dir) => existsSync(join(dir, pkg, 'package.json')));
  if (root === undefined) throw new Error('svcd bundle: package ' + pkg + ' not found');
  return join(root, pkg, rest);
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

/**
 * Modules of svcd (under dist/src) bundled into scripts of their own under vendor/, required from svcd's script
 * when first used: they hold what svcd uses of a large dependency.
 */
const VENDORED = { 'components/kubernetes-client.js': 'kubernetes-client' };

const vendored = {
  name: 'vendored',
  setup(b) {
    for (const [file, name] of Object.entries(VENDORED)) {
      const target = path.join(runtimeDir, 'dist/src', file);
      b.onResolve({ filter: new RegExp(`${path.basename(file).replaceAll('.', '\\.')}$`) }, (args) =>
        path.resolve(args.resolveDir, args.path) === target ? { path: `./vendor/${name}.cjs`, external: true } : undefined,
      );
    }
  },
};

/**
 * Dependencies that are costly to load or to set up and not needed to turn healthy, replaced in the bundle by a
 * stand-in that does that on first use. `mime-types` (koa's and its helpers' two versions) indexes all of mime-db,
 * about a tenth of svcd's module evaluation; svcd needs it for its first answer with a body. `@grpc/grpc-js`
 * requires Node's `http2` and `tls` at its top level, about 4 % of the instructions svcd runs between Node's own
 * start and healthy (callgrind); svcd listens on its gRPC ports with `node:net` and makes its gRPC servers after
 * turning ready, or at the first connection (util/grpc-server.ts). An entry lists what the dependents use, and a
 * stand-in exposes only those; with `allExports`, the stand-in has a getter for every export of the real module,
 * listed here at build time; with `body`, the entry writes its own stand-in.
 */
const LAZY = {
  'mime-types': {
    functions: ['charset', 'contentType', 'extension', 'lookup'],
    objects: ['types', 'extensions'],
    extra: 'charsets: { lookup: (type) => real().charset(type) },',
  },
  // `depd(namespace)`, and its `.function` and `.property` wrappers, read their caller's line from the stack when
  // called: at the top level of http-errors and cookies (koa's), so at every start. The first such read makes V8
  // find every line end of the 3 MB bundle, about 8 % of the instructions svcd runs after Node's own start. The stand-in
  // makes the real one when a deprecated thing is first used.
  depd: { body: depdOnFirstUse },
  // prom-client's Pushgateway (svcd serves its metrics, it pushes none) requires Node's `https` at its top level,
  // and with it `tls` and `crypto`.
  'node:https': { allExports: true },
  https: { allExports: true },
  // svcd serves HTTP from its start, so this saves nothing there; but Node 20 cannot make a V8 startup snapshot
  // of its `http` module (scripts/make-snapshot.cjs), and with a stand-in no module of svcd's loads it at its
  // top level.
  'node:http': { allExports: true },
  http: { allExports: true },
  // Its code tables (svcd's error codes map onto them as its modules load) come from files beside its index that
  // require nothing: reading them loads none of the rest.
  '@grpc/grpc-js': {
    allExports: true,
    fromFile: { status: ['./constants.js', 'Status'], logVerbosity: ['./constants.js', 'LogVerbosity'], propagate: ['./constants.js', 'Propagate'], connectivityState: ['./connectivity-state.js', 'ConnectivityState'] },
  },
};

/** depd's API (a deprecate function with `function` and `property`), each part made by the real one on first use. */
function depdOnFirstUse() {
  return `module.exports = function depd(namespace) {
  let made;
  const make = () => (made ??= real()(namespace));
  const deprecate = (message) => make()(message);
  deprecate.function = (fn, message) => {
    let wrapped;
    return function () { return (wrapped ??= make().function(fn, message)).apply(this, arguments); };
  };
  deprecate.property = (obj, prop, message) => {
    const own = obj && Object.getOwnPropertyDescriptor(obj, prop);
    if (!own || !own.configurable) return make().property(obj, prop, message);
    const wrap = () => { Object.defineProperty(obj, prop, own); make().property(obj, prop, message); };
    Object.defineProperty(obj, prop, {
      configurable: true,
      enumerable: own.enumerable,
      get() { wrap(); return this[prop]; },
      set(value) { wrap(); this[prop] = value; },
    });
  };
  return deprecate;
};`;
}

/** The stand-in's body for LAZY entry `lazy` of the module at `file`. */
function standInExports(lazy, file) {
  if (lazy.body) return lazy.body();
  if (lazy.allExports) {
    const load = createRequire(path.isAbsolute(file) ? file : import.meta.url);
    const module = load(file);
    const fromFile = lazy.fromFile ?? {};
    for (const [name, [from, key]] of Object.entries(fromFile)) {
      if (load(from)[key] !== module[name]) throw new Error(`bundle: ${file}'s ${name} is no longer ${key} of ${from} (lazy-on-first-call)`);
    }
    const names = Object.keys(module).filter((name) => name !== '__esModule');
    const getter = (name) => (fromFile[name] ? `() => require(${JSON.stringify(fromFile[name][0])}).${fromFile[name][1]}` : `() => real().${name}`);
    return `Object.defineProperty(module.exports, '__esModule', { value: true });
Object.defineProperties(module.exports, {
  ${names.map((name) => `${JSON.stringify(name)}: { enumerable: true, get: ${getter(name)} },`).join('\n  ')}
});`;
  }
  const { functions, objects, extra } = lazy;
  return `module.exports = {
  ${functions.map((f) => `${f}: (...a) => real().${f}(...a),`).join('\n  ')}
  ${objects.map((o) => `get ${o}() { return real().${o}; },`).join('\n  ')}
  ${extra}
};`;
}

const lazyOnFirstCall = {
  name: 'lazy-on-first-call',
  setup(b) {
    const names = Object.keys(LAZY).map((n) => n.replaceAll(/[-/.]/g, '\\$&')).join('|');
    b.onResolve({ filter: new RegExp(`^(${names})$`) }, async (args) => {
      // The stand-in's own require of the real module (a Node module is named as its dependents name it).
      if (args.pluginData?.lazyReal || args.namespace === 'lazy-on-first-call') return undefined;
      const real = await b.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: { lazyReal: true } });
      if (real.errors.length > 0) return { errors: real.errors };
      return { path: real.path, namespace: 'lazy-on-first-call', pluginData: { module: args.path } };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy-on-first-call' }, (args) => {
      const contents = `let loaded;
const real = () => (loaded ??= require(${JSON.stringify(args.path)}));
${standInExports(LAZY[args.pluginData.module], args.path)}`;
      return { contents, loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

/**
 * grpc-js asks `net.isIPv6` of every address it binds, logs or connects to. Node's test is one large regular
 * expression, compiled on its first use and again when V8 tiers it up (5–10 ms of svcd's start, for the two
 * loopback addresses it binds). grpc-js gets `node:net` with an isIPv6 that answers an address without a `:`
 * (no IPv6 address has none) without the expression, and asks Node's for the rest: the same answers.
 */
const cheapIpv6Test = {
  name: 'cheap-ipv6-test',
  setup(b) {
    b.onResolve({ filter: /^(node:)?net$/ }, (args) => (/[\\/]@grpc[\\/]grpc-js[\\/]/.test(args.importer) ? { path: 'net', namespace: 'cheap-ipv6-test' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'cheap-ipv6-test' }, () => ({
      contents: `const net = require('node:net');
module.exports = Object.assign(Object.create(net), { isIPv6: (address) => String(address).includes(':') && net.isIPv6(address) });`,
      loader: 'js',
    }));
  },
};

const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // better-sqlite3's own addon locator, asked only when its addon is not where npm puts it (stores/sqlite-database.ts).
  // Resolving and compiling better-sqlite3's dozen files at every start, outside the bundle and its code cache,
  // was 21–30 million instructions of the ~330 million svcd runs after Node's own start (callgrind).
  external: ['bindings'],
  banner: { js: banner },
  define: { 'import.meta.url': '__svcImportMetaUrl' },
  // `import()` left in the script fails there: the launcher compiles it as a vm.Script (for the code cache), which
  // has no dynamic-import callback. As require() behind a promise it works (the OTLP exporters load node:http so).
  supported: { 'dynamic-import': false },
  // Less to read at every start; identifiers stay, so stack traces still name functions.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
};

writeParsedRoots();
await rm(outdir, { recursive: true, force: true });
await build({ ...common, entryPoints: [path.join(runtimeDir, 'dist/src/main.js')], outfile: path.join(outdir, 'svcd.cjs'), plugins: [lazyOnFirstCall, cheapIpv6Test, fileLocations, vendored] });
await build({ ...common, entryPoints: [path.join(runtimeDir, 'dist/src/cli/main.js')], outfile: path.join(outdir, 'svc.cjs'), plugins: [fileLocations, vendored] });
for (const [file, name] of Object.entries(VENDORED)) {
  await build({ ...common, entryPoints: [path.join(runtimeDir, 'dist/src', file)], outfile: path.join(outdir, 'vendor', `${name}.cjs`), plugins: [fileLocations] });
}

// The run picks free ports and svcd binds them a moment later: another process's connection may take one in
// between (an ephemeral port of the same range). Only that failure is worth another attempt.
for (let attempt = 1; ; attempt++) {
  const made = spawnSync(process.execPath, [path.join(runtimeDir, 'scripts', 'make-code-cache.mjs')], { stdio: ['ignore', 'inherit', 'pipe'] });
  process.stderr.write(made.stderr);
  if (made.status === 0) break;
  if (attempt === 3 || !String(made.stderr).includes('is already in use')) throw new Error(`making svcd's code cache failed (exit ${made.status ?? made.signal})`);
}
