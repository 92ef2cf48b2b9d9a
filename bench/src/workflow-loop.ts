/** What the workflow benchmarks share: the worker process, the closed loop of instances and the statistics. */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TaskHubGrpcClient } from '@dapr/durabletask-js';
import { OrchestrationStatus } from '@dapr/durabletask-js/orchestration/enum/orchestration-status.enum.js';
import { SVCD_MAIN } from '@svc/runtime/test-support';

const WORKER_MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'workflow-worker.js');

/**
 * The svcd builds a bench runs in turn (A B A B …): BENCH_SVCD_MAINS, comma-separated launchers (e.g. another
 * checkout's `runtime/bin/svcd.js`), or this checkout's. Each with its label, A, B, …
 */
export const svcdBuilds: readonly { label: string; main: string }[] = (process.env.BENCH_SVCD_MAINS?.split(',') ?? [SVCD_MAIN]).map((main, i) => ({
  label: String.fromCharCode(65 + i),
  main,
}));

/** Calls `start(i)` for i = 0 … count − 1, `concurrency` calls at a time (each caller awaits its call, then takes the next i). */
export async function inParallel(count: number, concurrency: number, start: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await start(next++);
    }),
  );
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, '') ?? NaN) / 1024;
}

/** CPU time (user + system) a process used so far, in ms, from /proc/<pid>/stat (clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** `call` made `times` times one after the other: its latencies (ms, sorted) and the process `pid`'s CPU per call. */
export async function timedCalls(pid: number, times: number, call: () => Promise<unknown>): Promise<{ ms: number[]; cpuMsPerCall: number }> {
  const ms: number[] = [];
  const cpu0 = cpuMs(pid);
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    await call();
    ms.push(performance.now() - t0);
  }
  return { ms: ms.sort((a, b) => a - b), cpuMsPerCall: (cpuMs(pid) - cpu0) / times };
}

/** The benchmark's workflow worker in its own process, connected to `grpcAddress` (resolves once connected). */
export async function startWorker(grpcAddress: string): Promise<ChildProcess> {
  const child = fork(WORKER_MAIN, [grpcAddress], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`bench worker exited with ${code}`)));
  });
  return child;
}

export interface Cell {
  workload: string;
  inFlight: number;
  instances: number;
  perSecond: number;
  p50: number;
  p99: number;
  failed: number;
}

/**
 * Runs `instances` workflows keeping `inFlight` of them running; latency = schedule → completion seen. Instance i
 * goes through client i mod clients (several replicas: calls arrive everywhere, as from a load balancer).
 */
export async function closedLoop(clients: readonly TaskHubGrpcClient[], workflow: string, prefix: string, instances: number, inFlight: number): Promise<Cell> {
  const latencies: number[] = [];
  let failed = 0;
  let next = 0;
  const started = performance.now();
  const slot = async () => {
    for (let i = next++; i < instances; i = next++) {
      const client = clients[i % clients.length]!;
      const t0 = performance.now();
      const id = await client.scheduleNewOrchestration(workflow, undefined, `${prefix}-${i}`);
      const state = await client.waitForOrchestrationCompletion(id, false, 600);
      if (state?.runtimeStatus !== OrchestrationStatus.COMPLETED) failed++;
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, instances) }, slot));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { workload: workflow, inFlight, instances, perSecond: instances / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failed };
}
