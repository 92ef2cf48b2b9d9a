import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestChildProcess } from '@svc/runtime/test-support';
import type { WorkerMessage } from './messages.js';

const WORKER_MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'worker-main.js');

interface Waiter {
  predicate: (msg: WorkerMessage) => boolean;
  resolve: (msg: WorkerMessage) => void;
}

/**
 * Shared log of what every worker process reported. It outlives a killed worker, so a test can count how often
 * an activity ran across restarts.
 */
export class WorkerReports {
  readonly messages: WorkerMessage[] = [];
  private waiters: Waiter[] = [];

  add(msg: WorkerMessage): void {
    this.messages.push(msg);
    const ready = this.waiters.filter((w) => w.predicate(msg));
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve(msg);
  }

  /** Resolves on the next report (from now on) that matches. */
  next<K extends WorkerMessage['kind']>(kind: K, predicate: (msg: Extract<WorkerMessage, { kind: K }>) => boolean = () => true): Promise<Extract<WorkerMessage, { kind: K }>> {
    return new Promise((resolve) => {
      this.waiters.push({
        predicate: (m) => m.kind === kind && predicate(m as Extract<WorkerMessage, { kind: K }>),
        resolve: (m) => resolve(m as Extract<WorkerMessage, { kind: K }>),
      });
    });
  }

  /** Resolves on the first report so far that matches, or else on the next one to arrive. */
  seen<K extends WorkerMessage['kind']>(kind: K, predicate: (msg: Extract<WorkerMessage, { kind: K }>) => boolean): Promise<Extract<WorkerMessage, { kind: K }>> {
    const past = this.of(kind).find(predicate);
    return past ? Promise.resolve(past) : this.next(kind, predicate);
  }

  of<K extends WorkerMessage['kind']>(kind: K, instanceId?: string): Extract<WorkerMessage, { kind: K }>[] {
    return this.messages.filter(
      (m): m is Extract<WorkerMessage, { kind: K }> => m.kind === kind && (instanceId === undefined || ('instanceId' in m && m.instanceId === instanceId)),
    );
  }
}

/** A `@dapr/durabletask-js` worker in its own process (see worker-main.ts). */
export class WorkerProcess extends TestChildProcess {
  private constructor(child: ChildProcess) {
    super(child);
  }

  /** Starts the worker and resolves once its first GetWorkItems stream is open. */
  static async start(grpcAddress: string, reports: WorkerReports): Promise<WorkerProcess> {
    const child = fork(WORKER_MAIN, [grpcAddress], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    const worker = new WorkerProcess(child);
    child.on('message', (m) => reports.add(m as WorkerMessage));
    const connected = reports.next('connected');
    await Promise.race([
      connected,
      worker.exited.then(() => {
        throw new Error(`worker exited before connecting:\n${worker.output}`);
      }),
    ]);
    return worker;
  }
}
