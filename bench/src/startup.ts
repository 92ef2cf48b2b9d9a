/**
 * Start to healthy, interleaved start by start (BENCH_STARTS rounds, default 15): in each round `node -e 0` (spawn
 * to exit: what any Node process costs here), svcd with the embedded default (SQLite state store and pub/sub,
 * workflows ready, as `svc run` starts it), svcd with a Redis state store (also the actor store), and any other
 * sidecar given. A start is timed from spawn to the first 204 from /v1.0/healthz (probed every 2 ms); the sidecar's
 * CPU (user + system, all threads) and RSS are read when it turns healthy. A second later the sidecar's first API
 * answer is timed (`GET /v1.0/metadata`: JSON, as every sidecar answers it) and its RSS read again: what a first
 * request loads on use. Prints p50 / p90 / max per row.
 * Run: `npm run build && node bench/dist/src/startup.js` (BENCH_STARTUP_CASES=sqlite,snapshot,redis picks svcd's
 * rows; `snapshot` is the embedded default started from a V8 startup snapshot made for the run).
 * Any other sidecar is measured the same way, side by side: BENCH_SIDECAR_START is its command line, with `{http}`,
 * `{grpc}` and `{dir}` (an empty folder per start) filled in, e.g.
 * `BENCH_SIDECAR_START='daprd --app-id s --dapr-http-port {http} --dapr-grpc-port {grpc} --resources-path r' node bench/dist/src/startup.js`.
 * Several sidecars (another build of svcd, say): one command a line, each optionally named `name=command`.
 * NODE_EXTRA_CA_CERTS is left out of every row's environment (BENCH_STARTUP_ENV=as-is keeps it): Node reads and
 * parses those certificates, with its own roots, before it runs any JavaScript (about 400 million instructions
 * for Debian's bundle: `node -e 0` took 60 ms without it and 160 with it on one VM), svcd's image does not set it,
 * and daprd reads them only when it makes a TLS connection. When it is set here, one more row shows
 * `node -e 0` with it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeDefaultResources } from '@svc/runtime/cli/default-resources.js';
import { componentYaml, freePort, SVCD_MAIN, TEST_REDIS_HOST } from '@svc/runtime/test-support';
import { percentile, rssMiB } from './workflow-loop.js';

const STARTS = Number(process.env.BENCH_STARTS ?? 15);
const OTHER = process.env.BENCH_SIDECAR_START;
const CASES = (process.env.BENCH_STARTUP_CASES ?? 'sqlite,snapshot,redis').split(',').filter((c) => c !== '');
const EXTRA_CA_CERTS = process.env.NODE_EXTRA_CA_CERTS;
/** Every row's environment: this one, without NODE_EXTRA_CA_CERTS unless BENCH_STARTUP_ENV=as-is. */
const SPAWN_ENV: NodeJS.ProcessEnv = process.env.BENCH_STARTUP_ENV === 'as-is' ? process.env : { ...process.env, NODE_EXTRA_CA_CERTS: undefined };

interface Row {
  readonly label: string;
  /** Spawns it in `dir`; `healthy` false: the process is timed to its exit (`node -e 0`). */
  readonly start: (dir: string, http: number, grpc: number) => ChildProcess;
  readonly healthy: boolean;
}

/**
 * A V8 startup snapshot of svcd (runtime/scripts/make-snapshot.cjs), made once for the run when a case asks for it:
 * `node --snapshot-blob <it> svcd …` instead of the launcher.
 */
let snapshotBlob: string | undefined;
function svcdSnapshot(): string[] {
  if (snapshotBlob === undefined) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-startup-snapshot-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    snapshotBlob = path.join(dir, 'svcd.blob');
    execFileSync(process.execPath, [path.resolve(path.dirname(SVCD_MAIN), '..', 'scripts', 'make-snapshot.cjs'), snapshotBlob], { env: SPAWN_ENV, stdio: 'inherit' });
  }
  return ['--snapshot-blob', snapshotBlob, 'svcd'];
}

/** svcd with the resources `write` puts in its folder, started by its launcher or by `launch()`'s Node arguments. */
function svcdRow(label: string, write: (resources: string) => void, launch: () => string[] = () => [SVCD_MAIN]): Row {
  return {
    label,
    healthy: true,
    start: (dir, http, grpc) => {
      const resources = path.join(dir, 'resources');
      mkdirSync(resources, { recursive: true });
      write(resources);
      const args = ['--app-id', 'startup', '--http-port', String(http), '--grpc-port', String(grpc), '--metrics-port', '0', '--internal-grpc-port', '0'];
      return spawn(process.execPath, [...launch(), ...args, '--resources-path', resources, '--data-dir', path.join(dir, 'data')], { stdio: 'ignore', env: SPAWN_ENV });
    },
  };
}

const SVCD_ROWS: Record<string, Row> = {
  sqlite: svcdRow('svcd, embedded default (SQLite state and pub/sub, workflows ready)', (folder) => void writeDefaultResources(folder)),
  snapshot: svcdRow('svcd from a startup snapshot, embedded default', (folder) => void writeDefaultResources(folder), svcdSnapshot),
  redis: svcdRow('svcd, Redis state store (also the actor store)', (folder) =>
    writeFileSync(path.join(folder, 'statestore.yaml'), componentYaml('statestore', 'state.redis', { redisHost: TEST_REDIS_HOST, actorStateStore: 'true' })),
  ),
};

const rows: Row[] = [
  { label: '`node -e 0` (to exit)', healthy: false, start: () => spawn(process.execPath, ['-e', '0'], { stdio: 'ignore', env: SPAWN_ENV }) },
  ...(EXTRA_CA_CERTS && SPAWN_ENV.NODE_EXTRA_CA_CERTS === undefined
    ? [{ label: `\`node -e 0\` with NODE_EXTRA_CA_CERTS=${EXTRA_CA_CERTS}`, healthy: false, start: () => spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' }) }]
    : []),
  ...CASES.map((c) => {
    const row = SVCD_ROWS[c];
    if (row === undefined) throw new Error(`BENCH_STARTUP_CASES: no case ${c} (${Object.keys(SVCD_ROWS).join(', ')})`);
    return row;
  }),
  ...(OTHER ?? '')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => otherRow(line.trim())),
];

/** Another sidecar's row: `name=command` or a command, run by the shell (`exec`: the measured pid is the sidecar's). */
function otherRow(line: string): Row {
  const named = /^([\w.@-]+)=\s*(.+)$/.exec(line);
  const command = named ? named[2]! : line;
  return {
    label: named ? named[1]! : command,
    healthy: true,
    start: (dir, http, grpc) => spawn('/bin/sh', ['-c', `exec ${command.replaceAll('{http}', String(http)).replaceAll('{grpc}', String(grpc)).replaceAll('{dir}', dir)}`], { stdio: 'ignore', env: SPAWN_ENV }),
  };
}

/**
 * CPU time a process used so far, all its threads, in ms: /proc's schedstat counts nanoseconds, where /proc/<pid>/stat
 * counts 10 ms ticks, too coarse for a start of 100 ms.
 */
function cpuMsPrecise(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
  return ns / 1e6;
}

interface Sample {
  ms: number;
  cpu: number;
  rss: number;
  /** The first API answer, a second after healthy, and the RSS after it. */
  firstAnswerMs: number;
  rssAfterFirst: number;
}

const FIRST_ANSWER_AFTER_MS = 1000;

async function once(row: Row): Promise<Sample> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-startup-'));
  const http = await freePort();
  const grpc = await freePort();
  const t0 = performance.now();
  const child = row.start(dir, http, grpc);
  const exited = new Promise((r) => child.once('exit', r));
  try {
    if (!row.healthy) {
      await exited;
      return { ms: performance.now() - t0, cpu: NaN, rss: NaN, firstAnswerMs: NaN, rssAfterFirst: NaN };
    }
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${http}/v1.0/healthz`).then(
        (r) => r.status === 204,
        () => false,
      );
      if (ok) break;
      if (performance.now() - t0 > 30_000) throw new Error(`${row.label} was not healthy within 30 s`);
      await new Promise((r) => setTimeout(r, 2));
    }
    const healthy = { ms: performance.now() - t0, cpu: cpuMsPrecise(child.pid!), rss: rssMiB(child.pid!) };
    await new Promise((r) => setTimeout(r, FIRST_ANSWER_AFTER_MS));
    const t1 = performance.now();
    const metadata = await fetch(`http://127.0.0.1:${http}/v1.0/metadata`);
    await metadata.arrayBuffer();
    if (metadata.status !== 200) throw new Error(`${row.label} answered GET /v1.0/metadata ${metadata.status}`);
    return { ...healthy, firstAnswerMs: performance.now() - t1, rssAfterFirst: rssMiB(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

const samples = rows.map(() => [] as Sample[]);
for (let i = 0; i < STARTS; i++) {
  for (const [r, row] of rows.entries()) samples[r]!.push(await once(row));
}

const stat = (values: number[], p: number | 'max'): string => {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return '—';
  return (p === 'max' ? sorted.at(-1)! : percentile(sorted, p)).toFixed(0);
};
process.stdout.write(`Start to healthy, ${STARTS} rounds interleaved start by start; NODE_EXTRA_CA_CERTS ${SPAWN_ENV.NODE_EXTRA_CA_CERTS === undefined ? 'unset' : 'as set here'}\n`);
process.stdout.write('| | ms p50 | ms p90 | ms max | CPU ms p50 | RSS MiB when healthy, p50 | first answer ms p50 / max | RSS MiB after it, p50 |\n|---|---:|---:|---:|---:|---:|---:|---:|\n');
for (const [r, row] of rows.entries()) {
  const s = samples[r]!;
  const ms = s.map((x) => x.ms);
  const first = s.map((x) => x.firstAnswerMs);
  process.stdout.write(
    `| ${row.label} | ${stat(ms, 50)} | ${stat(ms, 90)} | ${stat(ms, 'max')} | ${stat(s.map((x) => x.cpu), 50)} | ${stat(s.map((x) => x.rss), 50)} | ${stat(first, 50)} / ${stat(first, 'max')} | ${stat(s.map((x) => x.rssAfterFirst), 50)} |\n`,
  );
}
