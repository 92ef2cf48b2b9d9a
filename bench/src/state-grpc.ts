/**
 * The state API over gRPC against HTTP, same svcd, same store, same closed-loop load (N callers, each sending its
 * next request when the last answered): requests/s, p50/p99 latency and svcd's CPU per request from /proc.
 * gRPC calls `dapr.proto.runtime.v1.Dapr` with a grpc-js client; HTTP uses node:http with keep-alive.
 * Run: `npm run build && node bench/dist/src/state-grpc.js` (BENCH_SECONDS, default 5 per cell).
 */
import http from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { loadRuntimeApiProto } from '@svc/proto';
import { componentYaml, SvcdProcess, TEST_REDIS_HOST } from '@svc/runtime/test-support';
import { cpuMs, percentile } from './workflow-loop.js';

const print = (line: string) => process.stdout.write(`${line}\n`);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const VALUE = JSON.stringify({ orderId: 'o-123456', customer: 'c-42', items: [{ sku: 'book', qty: 1, price: 12.5 }], note: 'x'.repeat(200) });

type Call = (i: number) => Promise<void>;

function httpCalls(port: number): Record<'get' | 'save', Call> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const request = (method: string, path: string, body?: string) =>
    new Promise<void>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode! < 300 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(body);
    });
  return {
    get: () => request('GET', '/v1.0/state/store/k0'),
    save: (i) => request('POST', '/v1.0/state/store', JSON.stringify([{ key: `k${i % 1000}`, value: JSON.parse(VALUE) as unknown }])),
  };
}

function grpcCalls(port: number): Record<'get' | 'save', Call> {
  const dapr = loadRuntimeApiProto().services[1]!;
  const Client = grpc.makeGenericClientConstructor(dapr.definition, 'Dapr');
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as Record<string, (req: unknown, cb: (err: Error | null) => void) => void>;
  const unary = (method: string, req: unknown) => new Promise<void>((resolve, reject) => client[method]!.call(client, req, (err) => (err ? reject(err) : resolve())));
  const value = Buffer.from(VALUE);
  return {
    get: () => unary('GetState', { storeName: 'store', key: 'k0' }),
    save: (i) => unary('SaveState', { storeName: 'store', states: [{ key: `k${i % 1000}`, value }] }),
  };
}

async function cell(svcd: SvcdProcess, label: string, transport: string, op: 'get' | 'save', call: Call, callers: number): Promise<void> {
  const latencies: number[] = [];
  let sent = 0;
  const end = performance.now() + SECONDS * 1000;
  const cpu0 = cpuMs(svcd.child.pid!);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < end) {
        const start = performance.now();
        await call(sent++);
        latencies.push(performance.now() - start);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuMs(svcd.child.pid!) - cpu0;
  latencies.sort((a, b) => a - b);
  print(`| ${label} | ${transport} | ${op} | ${callers} | ${(latencies.length / seconds).toFixed(0)} | ${percentile(latencies, 50).toFixed(2)} / ${percentile(latencies, 99).toFixed(2)} | ${((cpu * 1000) / latencies.length).toFixed(0)} |`);
}

const TARGETS = [
  { label: 'SQLite', yaml: componentYaml('store', 'state.sqlite') },
  { label: 'Redis', yaml: componentYaml('store', 'state.redis', { redisHost: TEST_REDIS_HOST, keyPrefix: 'none' }) },
];

print(`# state over gRPC and HTTP, ${SECONDS} s per row (real svcd; CPU is svcd's, from /proc)\n`);
print('| store | transport | op | callers | req/s | p50 / p99 ms | svcd CPU µs/req |');
print('|---|---|---|---:|---:|---:|---:|');
for (const target of TARGETS) {
  const svcd = await SvcdProcess.start({ resources: { 'store.yaml': target.yaml }, args: ['--log-level', 'warn'] });
  try {
    const transports = { HTTP: httpCalls(svcd.ports.http), gRPC: grpcCalls(svcd.ports.grpc) };
    await transports.HTTP.save(0);
    for (const op of ['get', 'save'] as const) {
      for (const callers of [1, 64]) {
        // Interleaved: each pair runs back to back, so machine noise hits both alike.
        for (const [name, calls] of Object.entries(transports)) await cell(svcd, target.label, name, op, calls[op], callers);
      }
    }
  } finally {
    await svcd.dispose();
  }
}
process.exit(0);
