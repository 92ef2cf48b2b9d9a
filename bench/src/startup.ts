/**
 * Start to healthy: svcd started BENCH_STARTS times (default 20) with the embedded default (a SQLite actor store,
 * workflows ready), the time from spawn to the first 204 from /v1.0/healthz (probed every 2 ms), and svcd's RSS
 * once healthy. Prints p50 / p90 / max.
 * Run: `npm run build && node bench/dist/src/startup.js`.
 * Any other sidecar is measured the same way, side by side: BENCH_SIDECAR_START is its command line, with `{http}`,
 * `{grpc}` and `{dir}` (an empty folder per start) filled in, e.g.
 * `BENCH_SIDECAR_START='daprd --app-id s --dapr-http-port {http} --dapr-grpc-port {grpc} --resources-path r' node bench/dist/src/startup.js`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeDefaultResources } from '@svc/runtime/cli/default-resources.js';
import { freePort, SVCD_MAIN } from '@svc/runtime/test-support';
import { percentile, rssMiB } from './workflow-loop.js';

const STARTS = Number(process.env.BENCH_STARTS ?? 20);
const OTHER = process.env.BENCH_SIDECAR_START;

/** svcd with the embedded default, or the other sidecar's command (`exec`: the measured pid is the sidecar's). */
function startSidecar(dir: string, http: number, grpc: number): ChildProcess {
  if (OTHER !== undefined) {
    const command = OTHER.replaceAll('{http}', String(http)).replaceAll('{grpc}', String(grpc)).replaceAll('{dir}', dir);
    return spawn('/bin/sh', ['-c', `exec ${command}`], { stdio: 'ignore' });
  }
  writeDefaultResources(path.join(dir, 'resources'));
  const args = ['--app-id', 'startup', '--http-port', String(http), '--grpc-port', String(grpc), '--metrics-port', '0', '--internal-grpc-port', '0'];
  return spawn(process.execPath, [SVCD_MAIN, ...args, '--resources-path', path.join(dir, 'resources'), '--data-dir', path.join(dir, 'data')], { stdio: 'ignore' });
}

async function once(): Promise<{ ms: number; rss: number }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-startup-'));
  const http = await freePort();
  const grpc = await freePort();
  const t0 = performance.now();
  const child = startSidecar(dir, http, grpc);
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${http}/v1.0/healthz`).then(
        (r) => r.status === 204,
        () => false,
      );
      if (ok) break;
      if (performance.now() - t0 > 30_000) throw new Error('svcd was not healthy within 30 s');
      await new Promise((r) => setTimeout(r, 2));
    }
    return { ms: performance.now() - t0, rss: rssMiB(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

const ms: number[] = [];
const rss: number[] = [];
for (let i = 0; i < STARTS; i++) {
  const r = await once();
  ms.push(r.ms);
  rss.push(r.rss);
}
ms.sort((a, b) => a - b);
rss.sort((a, b) => a - b);
process.stdout.write(`${OTHER ?? 'svcd (embedded SQLite, workflows ready)'}: start to healthy, ${STARTS} starts\n`);
process.stdout.write('| ms p50 | ms p90 | ms max | RSS MiB when healthy, p50 |\n|---:|---:|---:|---:|\n');
process.stdout.write(`| ${percentile(ms, 50).toFixed(0)} | ${percentile(ms, 90).toFixed(0)} | ${(ms.at(-1) ?? 0).toFixed(0)} | ${percentile(rss, 50).toFixed(0)} |\n`);
