#!/usr/bin/env node
// Runs every compiled test of every workspace in one mocha process, serially (integration tests own ports
// and processes). Extra arguments go to mocha, e.g. `npm test -- --grep "state API"`.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const specs = ['runtime', 'injector', 'e2e'].map((ws) => `${ws}/dist/test/**/*.test.js`);
const args = [
  path.join(root, 'node_modules/mocha/bin/mocha.js'),
  '--reporter', path.join(root, 'scripts/mocha-reporter.cjs'),
  '--timeout', '60000',
  '--exit',
  ...process.argv.slice(2),
  ...specs,
];
const res = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
process.exit(res.status ?? 1);
