/**
 * Makes the package users install: `svc-<version>-<platform>-<arch>-node<major>.tgz`, an npm tarball with svcd and
 * the svc CLI, the web UI and the embedded SQLite driver's compiled addon, and no dependency to fetch or compile:
 * `npm install -g <tarball> --offline` works on a machine with only Node.js. Run after `npm run build`
 * (`make package` does both); `--out <folder>` puts the tarball there (default: dist/ at the repository's root).
 *
 * The package keeps the repository's module layout under lib/node_modules (npm packs a nested node_modules as
 * plain files and runs no install script of it), so svcd's bundle resolves `@svc/runtime`, `@svc/ui`,
 * `better-sqlite3` and the dependency files it reads at run time exactly as it does in the repository. It holds
 * only what runs: the bundles, the two ES modules started by path (the launcher and the WAL checkpoint worker),
 * the UI's files, and whole copies of the few dependencies whose files the bundles read (found in the bundles).
 * The addon is built for this Node.js major version and platform, which the tarball's name and `engines`, `os`
 * and `cpu` fields say.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { moduleSpecifiers } from './module-specifiers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runtimeDir = path.join(root, 'runtime');
const fromRuntime = createRequire(path.join(runtimeDir, 'package.json'));
const outIndex = process.argv.indexOf('--out');
const outDir = path.resolve(outIndex > 0 ? process.argv[outIndex + 1] : path.join(root, 'dist'));
const stage = path.join(outDir, 'package-stage');
const modules = path.join(stage, 'lib', 'node_modules');

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const version = readJson(path.join(root, 'package.json')).version;
const nodeMajor = Number(process.versions.node.split('.')[0]);

/** A package's folder as svcd's bundle would find it from the runtime's folder. */
const packageDir = (name) => path.dirname(fromRuntime.resolve(`${name}/package.json`));

/** Copies `files` (relative to `from`, folders whole) into `to`. */
function copy(from, to, files) {
  for (const file of files) {
    const source = path.join(from, file);
    if (!existsSync(source)) throw new Error(`package: ${source} is missing; run npm run build first`);
    cpSync(source, path.join(to, file), { recursive: true, filter: (p) => !p.slice(source.length).includes(`${path.sep}node_modules`) });
  }
}

/**
 * An ES module started by path and every module it imports relatively; any other import must be Node's own or
 * `better-sqlite3` (in the package), so a file that reaches for a dependency the package lacks fails here.
 */
function moduleClosure(entry, seen = new Set()) {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  const source = readFileSync(entry, 'utf8');
  for (const specifier of moduleSpecifiers(source)) {
    if (specifier.startsWith('.')) moduleClosure(path.resolve(path.dirname(entry), specifier), seen);
    else if (!specifier.startsWith('node:') && specifier !== 'better-sqlite3') throw new Error(`package: ${entry} imports ${specifier}, which the package does not carry`);
  }
  return seen;
}

/** The dependency packages whose own files a bundle reads at run time (the bundler's `__svcPackagePath` calls). */
function packagesReadByBundles(bundleDir) {
  const names = new Set();
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith('.cjs')) for (const [, name] of readFileSync(file, 'utf8').matchAll(/__svcPackagePath\("([^"]+)"/g)) names.add(name);
    }
  };
  walk(bundleDir);
  return [...names].sort();
}

/** Every package a bundle resolves by name at run time (`require.resolve("…")`) is in the package. */
function assertResolvable(bundleDir) {
  const inPackage = createRequire(path.join(modules, '@svc', 'runtime', 'package.json'));
  for (const name of readdirSync(bundleDir).filter((f) => f.endsWith('.cjs'))) {
    for (const [, specifier] of readFileSync(path.join(bundleDir, name), 'utf8').matchAll(/\.resolve\("((?:@[\w.-]+\/)?[\w.-]+(?:\/[^"]*)?)"\)/g)) {
      if (!/^(?:@[\w.-]+\/)?[a-z][\w.-]*(?:\/|$)/.test(specifier)) continue;
      try {
        inPackage.resolve(specifier);
      } catch {
        throw new Error(`package: ${name} resolves ${specifier} at run time, which the package does not carry`);
      }
    }
  }
}

rmSync(stage, { recursive: true, force: true });

// @svc/runtime: the launchers, the bundles, and the ES modules started by path.
const runtimeOut = path.join(modules, '@svc', 'runtime');
copy(runtimeDir, runtimeOut, ['bin', 'dist/bundle']);
// A startup snapshot made here (runtime/scripts/make-snapshot.cjs) holds this machine's paths and CPU: never shipped.
rmSync(path.join(runtimeOut, 'dist', 'bundle', 'svcd.blob'), { force: true });
for (const entry of ['launcher/svcd-bundle.cjs', 'stores/sqlite-checkpoint-worker.js']) {
  for (const file of moduleClosure(path.join(runtimeDir, 'dist', 'src', entry))) copy(runtimeDir, runtimeOut, [path.relative(runtimeDir, file)]);
}
const runtimePackage = readJson(path.join(runtimeDir, 'package.json'));
delete runtimePackage.dependencies;
delete runtimePackage.devDependencies;
writeFileSync(path.join(runtimeOut, 'package.json'), `${JSON.stringify(runtimePackage, null, 2)}\n`);

// The web UI's files (the package's own `files` list).
const uiDir = packageDir('@svc/ui');
const uiPackage = readJson(path.join(uiDir, 'package.json'));
copy(uiDir, path.join(modules, '@svc', 'ui'), ['package.json', 'static']);
copy(uiDir, path.join(modules, '@svc', 'ui'), readdirSync(path.join(uiDir, 'dist', 'src')).filter((f) => f.endsWith('.js')).map((f) => `dist/src/${f}`));
if (!uiPackage.files.includes('dist/src/*.js')) throw new Error('package: @svc/ui no longer lists dist/src/*.js; update scripts/package.mjs');

// The embedded SQLite driver: its JavaScript and the addon npm compiled or downloaded for this machine (svcd names
// the addon's file, so the driver's own locator, the `bindings` package, is not needed).
copy(packageDir('better-sqlite3'), path.join(modules, 'better-sqlite3'), ['package.json', 'LICENSE', 'lib', 'build/Release/better_sqlite3.node']);

// The service definitions svcd loads at start (@svc/proto's .proto files, and the JSON of each parsed at build,
// which svcd reads instead of parsing the text) and @grpc/reflection's own, which it finds from the package's main
// module.
cpSync(packageDir('@svc/proto'), path.join(modules, '@svc', 'proto'), {
  recursive: true,
  filter: (p) => !p.includes(`${path.sep}node_modules`) && (statSync(p).isDirectory() || p.endsWith('.proto') || p.endsWith('.proto.json') || path.basename(p) === 'package.json'),
});
for (const name of ['@grpc/reflection', ...packagesReadByBundles(path.join(runtimeDir, 'dist', 'bundle'))]) copy(packageDir(name), path.join(modules, name), ['.']);
assertResolvable(path.join(runtimeDir, 'dist', 'bundle'));

const runtimeBin = (name) => `lib/node_modules/@svc/runtime/${runtimePackage.bin[name]}`;
const manifest = {
  name: 'svc',
  version,
  description: 'svc: the svcd sidecar runtime and the svc CLI, self-contained (no dependency to install)',
  license: 'Apache-2.0',
  bin: { svc: runtimeBin('svc'), svcd: runtimeBin('svcd') },
  files: ['lib'],
  engines: { node: `>=${nodeMajor}.0.0 <${nodeMajor + 1}.0.0` },
  os: [process.platform],
  cpu: [process.arch],
};
writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
copy(root, stage, ['README.md']);

mkdirSync(outDir, { recursive: true });
const packed = spawnSync('npm', ['pack', '--json', '--pack-destination', outDir], { cwd: stage, encoding: 'utf8' });
if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
const [{ filename }] = JSON.parse(packed.stdout);
const tarball = path.join(outDir, `svc-${version}-${process.platform}-${process.arch}-node${nodeMajor}.tgz`);
renameSync(path.join(outDir, filename), tarball);
rmSync(stage, { recursive: true, force: true });
process.stdout.write(`${tarball}\n`);
