/**
 * Several replicas of one app (docs/actors.md "Several replicas"): real svcd processes on one Redis (or
 * PostgreSQL) actor store, each with its own real `@dapr/durabletask-js` worker process, clients spread over the
 * replicas. Prints, for 1, 2 and 3 replicas:
 *   workflows/s and p50/p99 of (a) 5 sequential activities, 50 in flight — and the CPU time all svcd processes
 *   used per workflow (from /proc: on this 2-core machine the replicas share the cores, so CPU per workflow is the
 *   figure that says what a replica costs; workers and client use CPU too and are not counted);
 * and, with 2 replicas, the latency a routed call adds: GET of a finished workflow through the replica that owns
 * it (local) and through the other one (routed over the internal port), 2,000 sequential calls each.
 * Run: `npm run build && node bench/dist/src/replicas.js` (BENCH_STORES=redis,postgresql; BENCH_SCALE scales counts).
 */
import type { ChildProcess } from 'node:child_process';
import { TaskHubGrpcClient } from '@dapr/durabletask-js';
import { ownershipPartitionOf } from '@svc/runtime/actors/placement/partitions.js';
import { actorStore, SvcdProcess, type ActorStoreKind } from '@svc/runtime/test-support';
import { closedLoop, cpuMs, percentile, startWorker } from './workflow-loop.js';

const print = (line: string) => process.stdout.write(`${line}\n`);
console.log = () => undefined;
console.info = () => undefined;

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const count = (n: number) => Math.max(1, Math.round(n * SCALE));

interface Replicas {
  svcd: SvcdProcess[];
  workers: ChildProcess[];
  clients: TaskHubGrpcClient[];
  close(): Promise<void>;
}

async function ownedPartitions(svcd: SvcdProcess): Promise<Set<number>> {
  const meta = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { actorRuntime: { partitions: { partition: number }[] } };
  return new Set(meta.actorRuntime.partitions.map((p) => p.partition));
}

async function startReplicas(kind: ActorStoreKind, n: number): Promise<Replicas> {
  const store = actorStore(kind, 'bench-replicas');
  const svcd: SvcdProcess[] = [];
  for (let i = 0; i < n; i++) svcd.push(await SvcdProcess.start({ appId: store.appId, resources: store.resources, args: ['--log-level', 'warn', '--internal-grpc-port', '0'] }));
  // Balanced: every partition owned, shares within one of each other.
  for (;;) {
    const owned = await Promise.all(svcd.map(ownedPartitions));
    if (owned.reduce((a, s) => a + s.size, 0) === 64 && owned.every((s) => s.size >= Math.floor(64 / n))) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const workers = await Promise.all(svcd.map((s) => startWorker(s.grpcAddress)));
  const clients = svcd.map((s) => new TaskHubGrpcClient(s.grpcAddress));
  return {
    svcd,
    workers,
    clients,
    close: async () => {
      await Promise.all(clients.map((c) => c.stop()));
      for (const w of workers) w.kill('SIGTERM');
      await Promise.all(svcd.map((s) => s.dispose()));
      await store.cleanup();
    },
  };
}

async function throughput(kind: ActorStoreKind, n: number): Promise<void> {
  const r = await startReplicas(kind, n);
  try {
    const instances = count(300);
    const cpuBefore = r.svcd.map((s) => cpuMs(s.child.pid!));
    const cell = await closedLoop(r.clients, 'sequence', `seq-${n}`, instances, 50);
    const cpu = r.svcd.reduce((sum, s, i) => sum + cpuMs(s.child.pid!) - cpuBefore[i]!, 0);
    print(`| ${kind} | ${n} | ${instances} | ${cell.perSecond.toFixed(1)} | ${cell.p50.toFixed(0)} | ${cell.p99.toFixed(0)} | ${(cpu / instances).toFixed(2)} | ${cell.failed} |`);
  } finally {
    await r.close();
  }
}

async function routedLatency(kind: ActorStoreKind): Promise<void> {
  const r = await startReplicas(kind, 2);
  try {
    const a = r.svcd[0]!;
    const ownedByA = await ownedPartitions(a);
    // One finished instance owned by each replica.
    const ids = { local: '', routed: '' };
    for (let i = 0; ids.local === '' || ids.routed === ''; i++) {
      const id = `probe-${i}`;
      if (ownedByA.has(ownershipPartitionOf(id))) ids.local ||= id;
      else ids.routed ||= id;
    }
    for (const id of Object.values(ids)) {
      await r.clients[0]!.scheduleNewOrchestration('sequence', undefined, id);
      await r.clients[0]!.waitForOrchestrationCompletion(id, false, 60);
    }
    const calls = count(2000);
    for (const [label, id] of Object.entries(ids)) {
      const latencies: number[] = [];
      for (let i = 0; i < calls + 100; i++) {
        const t0 = performance.now();
        const res = await a.request('GET', `/v1.0/workflows/svc/${id}`);
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`GET answered ${res.status}`);
        if (i >= 100) latencies.push(performance.now() - t0); // the first 100 warm up
      }
      latencies.sort((x, y) => x - y);
      print(`| ${kind} | ${label === 'local' ? 'owned by the called replica' : 'owned by the other replica (routed)'} | ${calls} | ${percentile(latencies, 50).toFixed(2)} | ${percentile(latencies, 99).toFixed(2)} |`);
    }
  } finally {
    await r.close();
  }
}

const began = Date.now();
const stores = (process.env.BENCH_STORES ?? 'redis').split(',') as ActorStoreKind[];
print(`# replicas benchmark (real svcd replicas on one store, one @dapr/durabletask-js worker each; BENCH_SCALE=${SCALE})`);
print('\n## (a) 5 sequential activities, 50 in flight, clients spread over the replicas\n');
print('| store | replicas | instances | workflows/s | p50 ms | p99 ms | svcd CPU ms per workflow (all replicas) | not completed |');
print('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const kind of stores) for (const n of [1, 2, 3]) await throughput(kind, n);
print('\n## the cost of routing: GET of a finished workflow through one replica\n');
print('| store | instance | calls | p50 ms | p99 ms |');
print('|---|---|---:|---:|---:|');
for (const kind of stores) await routedLatency(kind);
print(`\ntotal ${((Date.now() - began) / 1000).toFixed(0)} s`);
process.exit(0);
