/**
 * Service invocation benchmark: an app's call through its svcd (A) to another app's svcd (B) and that app, over
 * HTTP (`/v1.0/invoke/target/method/ping`) and gRPC (`InvokeService`), at 1 and 64 callers in flight. Prints
 * calls/s, p50/p99, and each sidecar's CPU per call from /proc (user + system over the run ÷ calls), with a row
 * straight to the app for reference. The target app is a plain node:http server in its own process.
 * Run: `npm run build && node bench/dist/src/invocation.js` (BENCH_SECONDS, default 5).
 */
import * as grpc from '@grpc/grpc-js';
import { loadRuntimeApiProto } from '@svc/proto';
import { SvcdProcess, tempFolder } from '@svc/runtime/test-support';
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { cpuMs, percentile } from './workflow-loop.js';

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
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
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

async function main(): Promise<void> {
  const registry = path.join(tempFolder('bench-registry-'), 'registry.db');
  const configuration = `apiVersion: svc.io/v1alpha1\nkind: Configuration\nmetadata:\n  name: bench\nspec:\n  nameResolution:\n    component: sqlite\n    configuration:\n      path: ${registry}\n`;
  const appPort = 20_000 + Math.floor(Math.random() * 10_000);
  const app = await startApp(appPort);
  const quiet = ['--log-level', 'warn'];
  const b = await SvcdProcess.start({ appId: 'target', resources: { 'c.yaml': configuration }, args: [...quiet, '--app-port', String(appPort)] });
  const a = await SvcdProcess.start({ appId: 'caller', resources: { 'c.yaml': configuration }, args: quiet });
  const pids = [a.child.pid!, b.child.pid!];
  try {
    const paths: [string, Call, number[]][] = [
      ['app directly (HTTP)', httpCall(appPort, '/ping'), []],
      ['HTTP /v1.0/invoke', httpCall(a.ports.http, '/v1.0/invoke/target/method/ping'), pids],
      ['HTTP dapr-app-id header', httpCall(a.ports.http, '/ping', { 'dapr-app-id': 'target' }), pids],
      ['gRPC InvokeService', grpcCall(a.ports.grpc), pids],
    ];
    // Unmeasured: the JIT compiles the paths before the first row.
    for (const [label, call] of paths) await measure(label, call, 8, []).catch((err: Error) => Promise.reject(new Error(`${label}: ${err.message}`)));
    const rows: Row[] = [];
    for (const callers of [1, 64]) for (const [label, call, measured] of paths) rows.push(await measure(label, call, callers, measured));
    print(`service invocation: caller app → svcd A → svcd B → app (node:http, ~230-byte JSON POST, 11-byte answer), ${SECONDS} s per row`);
    print('| path | callers | calls/s | p50 ms | p99 ms | svcd A CPU µs/call | svcd B CPU µs/call | both µs/call |');
    print('|---|---|---|---|---|---|---|---|');
    for (const r of rows) {
      const [ca, cb] = r.cpuUs;
      const cpu = ca === undefined ? ['–', '–', '–'] : [ca.toFixed(0), cb!.toFixed(0), (ca + cb!).toFixed(0)];
      print(`| ${r.path} | ${r.callers} | ${r.perSec.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${cpu.join(' | ')} |`);
    }
  } finally {
    await Promise.all([a.stop(), b.stop()]);
    app.kill();
  }
}

await main();
