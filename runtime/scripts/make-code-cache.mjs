/**
 * Makes svcd's code cache (dist/bundle/svcd.cjs.code-cache): starts svcd from its bundle in this process with the
 * embedded default (SQLite, workflows ready) in a temporary folder, waits until it is healthy and has answered a
 * state write and read, lets the steps svcd defers until after ready run (its gRPC servers, koa, the gRPC message
 * conversions: main.ts), and answer a request through koa, then writes V8's cache of everything compiled by then.
 * A later start compiles none of it. The deferred steps make the cache 1.59 MB against 1.22 and cost the start
 * little (15 interleaved starts: 234 against 228 ms of CPU to healthy), and spare the first calls their compiling:
 * a gRPC call sent right after healthy and the one after it took 63–83 and 4–5 ms with them, 64–102 and, in five
 * starts of eight, 44–55 ms without (the second call waited while the steps compiled).
 * Run by bundle.mjs, with the same Node and V8 flags as svcd will run with (V8 refuses a cache made otherwise).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { writeDefaultResources } from '../dist/src/cli/default-resources.js';
import { compileSvcdBundle, runSvcdBundle, SVCD_BUNDLE_FILE, SVCD_CODE_CACHE_FILE } from '../dist/src/launcher/svcd-bundle.cjs';

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

/** Long enough after healthy for svcd's deferred steps (100 ms after ready, then a few turns) on a slow machine. */
const DEFERRED_STEPS_DONE_MS = 1_000;

const dir = mkdtempSync(path.join(os.tmpdir(), 'svcd-code-cache-'));
try {
  writeDefaultResources(path.join(dir, 'resources'));
  const http = await freePort();
  const ports = ['--http-port', String(http), '--grpc-port', String(await freePort()), '--metrics-port', '0', '--internal-grpc-port', '0'];
  process.argv = [process.execPath, SVCD_BUNDLE_FILE, '--app-id', 'code-cache', ...ports, '--resources-path', path.join(dir, 'resources'), '--data-dir', path.join(dir, 'data'), '--log-level', 'error'];
  const bundle = compileSvcdBundle(false);
  runSvcdBundle(bundle);

  const api = `http://127.0.0.1:${http}/v1.0`;
  const deadline = Date.now() + 60_000;
  while ((await fetch(`${api}/healthz`).then((r) => r.status, () => 0)) !== 204) {
    if (Date.now() > deadline) throw new Error('svcd did not become healthy within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const saved = await fetch(`${api}/state/statestore`, { method: 'POST', body: JSON.stringify([{ key: 'k', value: { a: 1 } }]) });
  const read = await fetch(`${api}/state/statestore/k`);
  if (saved.status !== 204 || read.status !== 200) throw new Error(`svcd answered a state write ${saved.status} and a read ${read.status}`);
  await new Promise((resolve) => setTimeout(resolve, DEFERRED_STEPS_DONE_MS));
  const metadata = await fetch(`${api}/metadata`);
  if (metadata.status !== 200) throw new Error(`svcd answered GET /v1.0/metadata ${metadata.status}`);
  await metadata.arrayBuffer();

  writeFileSync(SVCD_CODE_CACHE_FILE, bundle.script.createCachedData());
} catch (err) {
  process.stderr.write(`make-code-cache: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
// svcd keeps listening; its work here is done.
process.exit();
