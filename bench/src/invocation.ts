/**
 * Service invocation benchmark: an app's call through its svcd (A) to another app's svcd (B) and that app, over
 * HTTP (`/v1.0/invoke/target/method/ping`) and gRPC (`InvokeService`), at 1 and 64 callers in flight. Prints
 * calls/s, p50/p99, and each sidecar's CPU per call from /proc (user + system over the run ÷ calls), with a row
 * straight to the app for reference. The target app is a plain node:http server in its own process.
 * Run: `npm run build && node bench/dist/src/invocation.js` (BENCH_SECONDS, default 5). With `BENCH_DAPRD=<path to
 * daprd>` the same rows run through two daprd sidecars as well, interleaved with svcd's, in the same run; with
 * BENCH_SVCD_MAINS (comma-separated svcd launchers, workflow-loop.ts) through a pair of each svcd build.
 */
import * as grpc from '@grpc/grpc-js';
import { loadRuntimeApiProto } from '@svc/proto';
import { freePort, SvcdProcess, tempFolder } from '@svc/runtime/test-support';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { cpuMs, percentile, svcdBuilds } from './workflow-loop.js';

const print = (line: string) => process.stdout.write(`${line}\n`);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const BODY = JSON.stringify({ orderId: 'o-123456', note: 'x'.repeat(200) });
/** The app answers every request with a small JSON body, as an order service would. */
const APP_SOURCE = `require('node:http').createServer((q, s) => { q.resume(); q.on('end', () => { s.writeHead(200, { 'content-type': 'application/json' }); s.end('{"ok":true}'); }); }).listen(Number(process.argv[1]), '127.0.0.1', () => process.send('up'));`;

type Call = () => Promise<void>;

function httpCall(port: number, path: string, headers: Record<string, string> = {}): Call {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  return () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path, agent, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode} from port ${port} ${path}: ${text.slice(0, 300)}`))));
      });
      req.on('error', reject);
      req.end(BODY);
    });
}

function grpcCall(port: number): Call {
  const dapr = loadRuntimeApiProto().services[1]!;
  const Client = grpc.makeGenericClientConstructor(dapr.definition, 'Dapr');
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as Record<string, (req: unknown, cb: (err: Error | null) => void) => void>;
  const request = { id: 'target', message: { method: 'ping', data: { type_url: '', value: Buffer.from(BODY) }, contentType: 'application/json', httpExtension: { verb: 'POST', querystring: '' } } };
  return () => new Promise<void>((resolve, reject) => client.InvokeService!.call(client, request, (err) => (err ? reject(err) : resolve())));
}

interface Row {
  readonly path: string;
  readonly callers: number;
  readonly perSec: number;
  readonly p50: number;
  readonly p99: number;
  /** µs per call for each measured pid, in order. */
  readonly cpuUs: number[];
}

async function measure(label: string, call: Call, callers: number, pids: readonly number[]): Promise<Row> {
  const latencies: number[] = [];
  const end = performance.now() + SECONDS * 1000;
  const cpu0 = pids.map(cpuMs);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < end) {
        const start = performance.now();
        await call();
        latencies.push(performance.now() - start);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return { path: label, callers, perSec: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpuUs: pids.map((pid, i) => ((cpuMs(pid) - cpu0[i]!) * 1000) / latencies.length) };
}

async function startApp(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', APP_SOURCE, String(port)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => child.once('message', () => resolve()).once('exit', (code) => reject(new Error(`the app exited (${code})`))));
  return child;
}

/** Two sidecars: A (the caller's, no app) and B (the target's, with the app), on one name registry. */
interface Pair {
  readonly name: string;
  readonly a: { readonly http: number; readonly grpc: number };
  readonly pids: readonly number[];
  stop(): Promise<void>;
}

async function svcdPair(appPort: number, build: { label: string; main: string }): Promise<Pair> {
  const registry = path.join(tempFolder('bench-registry-'), 'registry.db');
  const configuration = `apiVersion: svc.io/v1alpha1\nkind: Configuration\nmetadata:\n  name: bench\nspec:\n  nameResolution:\n    component: sqlite\n    configuration:\n      path: ${registry}\n`;
  const quiet = ['--log-level', 'warn'];
  const b = await SvcdProcess.start({ appId: 'target', resources: { 'c.yaml': configuration }, args: [...quiet, '--app-port', String(appPort)], svcdMain: build.main });
  const a = await SvcdProcess.start({ appId: 'caller', resources: { 'c.yaml': configuration }, args: quiet, svcdMain: build.main });
  return { name: svcdBuilds.length > 1 ? `svcd ${build.label}` : 'svcd', a: { http: a.ports.http, grpc: a.ports.grpc }, pids: [a.child.pid!, b.child.pid!], stop: async () => void (await Promise.all([a.stop(), b.stop()])) };
}

/**
 * daprd (`BENCH_DAPRD`: the binary's path) in standalone mode, with Dapr's own SQLite name resolver, no placement
 * and no scheduler (service invocation needs neither): the same two-sidecar path for comparison in the same run.
 */
async function daprdPair(daprd: string, appPort: number): Promise<Pair> {
  const dir = tempFolder('bench-daprd-');
  const config = path.join(dir, 'config.yaml');
  writeFileSync(config, `apiVersion: dapr.io/v1alpha1\nkind: Configuration\nmetadata:\n  name: bench\nspec:\n  nameResolution:\n    component: sqlite\n    version: v1\n    configuration:\n      connectionString: ${path.join(dir, 'nr.db')}\n`);
  mkdirSync(path.join(dir, 'resources'));
  const start = async (appId: string, app?: number) => {
    const [http, grpcPort, internal, metrics] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const args = ['--app-id', appId, '--dapr-http-port', String(http), '--dapr-grpc-port', String(grpcPort), '--dapr-internal-grpc-port', String(internal), '--metrics-port', String(metrics), '--resources-path', path.join(dir, 'resources'), '--config', config, '--log-level', 'warn', ...(app ? ['--app-port', String(app)] : [])];
    const child = spawn(daprd, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    for (const deadline = Date.now() + 30_000; ; ) {
      const ok = await fetch(`http://127.0.0.1:${http}/v1.0/healthz`).then((r) => r.status === 204, () => false);
      if (ok) break;
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`daprd ${appId} did not become healthy`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return { http, grpc: grpcPort, child };
  };
  const b = await start('target', appPort);
  const a = await start('caller');
  return {
    name: 'daprd',
    a: { http: a.http, grpc: a.grpc },
    pids: [a.child.pid!, b.child.pid!],
    stop: async () => {
      for (const c of [a.child, b.child]) c.kill('SIGTERM');
      await Promise.all([a.child, b.child].map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
    },
  };
}

function paths(pair: Pair): [string, Call][] {
  return [
    ['HTTP /v1.0/invoke', httpCall(pair.a.http, '/v1.0/invoke/target/method/ping')],
    ['HTTP dapr-app-id header', httpCall(pair.a.http, '/ping', { 'dapr-app-id': 'target' })],
    ['gRPC InvokeService', grpcCall(pair.a.grpc)],
  ];
}

async function main(): Promise<void> {
  const appPort = 20_000 + Math.floor(Math.random() * 10_000);
  const app = await startApp(appPort);
  const pairs: Pair[] = [];
  for (const build of svcdBuilds) pairs.push(await svcdPair(appPort, build));
  const daprd = process.env.BENCH_DAPRD;
  if (daprd) pairs.push(await daprdPair(daprd, appPort));
  try {
    const direct = httpCall(appPort, '/ping');
    // Unmeasured: the JIT compiles the paths before the first row (and every sidecar's connections are up).
    await measure('warm-up', direct, 8, []);
    for (const pair of pairs) for (const [label, call] of paths(pair)) await measure(label, call, 8, []).catch((err: Error) => Promise.reject(new Error(`${pair.name} ${label}: ${err.message}`)));
    const rows: (Row & { sidecar: string })[] = [];
    for (const callers of [1, 64]) {
      rows.push({ sidecar: '–', ...(await measure('app directly (HTTP)', direct, callers, [])) });
      // Interleaved: each path through svcd, then through daprd, so both see the machine in the same state.
      for (let i = 0; i < 3; i++) for (const pair of pairs) rows.push({ sidecar: pair.name, ...(await measure(paths(pair)[i]![0], paths(pair)[i]![1], callers, pair.pids)) });
    }
    print(`service invocation: caller app → sidecar A → sidecar B → app (node:http, ~230-byte JSON POST, 11-byte answer), ${SECONDS} s per row`);
    print('| sidecar | path | callers | calls/s | p50 ms | p99 ms | A CPU µs/call | B CPU µs/call | both µs/call |');
    print('|---|---|---|---|---|---|---|---|---|');
    for (const r of rows) {
      const [ca, cb] = r.cpuUs;
      const cpu = ca === undefined ? ['–', '–', '–'] : [ca.toFixed(0), cb!.toFixed(0), (ca + cb!).toFixed(0)];
      print(`| ${r.sidecar} | ${r.path} | ${r.callers} | ${r.perSec.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${cpu.join(' | ')} |`);
    }
  } finally {
    await Promise.all(pairs.map((p) => p.stop()));
    app.kill();
  }
}

await main();
