/**
 * Makes a V8 startup snapshot of svcd: `node runtime/scripts/make-snapshot.cjs [<blob>]` (default
 * dist/bundle/svcd.blob, after `npm run build`), then `node --snapshot-blob <blob> svcd <svcd's flags>` starts svcd
 * from it (`svcd` stands for the script Node would otherwise run: process.argv keeps its usual shape).
 *
 * The snapshot holds the heap as it is once the bundle's modules are evaluated, compiled with the bundle's code cache
 * (the functions a start runs already have their bytecode); main.ts's main runs when a process starts from it. On
 * this machine that starts svcd sooner and on less CPU than the bundle with its code cache (docs/performance.md,
 * "Twelfth session"). It is not how svcd is launched: Node refuses, as a fatal error, a snapshot made by another
 * Node build or on a CPU with other features (the check covers V8's version, flags and the CPU features it uses),
 * where a code cache is merely ignored; and the snapshot keeps the paths it was made at. So a snapshot is only
 * good on the machine and in the folder it was made in.
 *
 * Run plainly, this script runs Node again to build the snapshot, with itself as the builder's entry script.
 */
'use strict';
const { startupSnapshot } = require('node:v8');

if (startupSnapshot.isBuildingSnapshot()) {
  // svcd's launcher, evaluated here as Node would evaluate it: a snapshot made after any CommonJS file was loaded
  // through Node's module loader fails an internal assertion when it starts. It requires only Node's own modules.
  const fs = require('node:fs');
  const path = require('node:path');
  const vm = require('node:vm');
  const launcherFile = path.join(__dirname, '..', 'dist', 'src', 'launcher', 'svcd-bundle.cjs');
  const launcher = { exports: {} };
  vm.runInThisContext(`(function (exports, require, module, __filename, __dirname) {${fs.readFileSync(launcherFile, 'utf8')}\n})`, { filename: launcherFile })(
    launcher.exports,
    require,
    launcher,
    launcherFile,
    path.dirname(launcherFile),
  );
  const { compileSvcdBundle, runSvcdBundle } = launcher.exports;
  const bundle = compileSvcdBundle();
  if (bundle.codeCache !== 'accepted') throw new Error(`make-snapshot: the bundle's code cache was ${bundle.codeCache}: run npm run build with this Node`);
  runSvcdBundle(bundle);
} else {
  const { spawnSync } = require('node:child_process');
  const path = require('node:path');
  const blob = path.resolve(process.argv[2] ?? path.join(__dirname, '..', 'dist', 'bundle', 'svcd.blob'));
  const made = spawnSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', __filename], { encoding: 'utf8' });
  // Node warns that its `vm` and `module` are not verified in snapshot builders: svcd's start from the snapshot is
  // tested (runtime/test/launcher/svcd-snapshot.test.ts). Anything else is shown.
  const shown = made.stderr.split('\n').filter((line) => line !== '' && !/not yet fully verified|may still work|certain run-time states|request support for the module|--trace-warnings/.test(line));
  if (shown.length > 0) process.stderr.write(`${shown.join('\n')}\n`);
  if (made.status !== 0) {
    process.stderr.write(`make-snapshot: building the snapshot failed (exit ${made.status ?? made.signal})\n`);
    process.exit(1);
  }
  process.stdout.write(`${blob}\n`);
}
