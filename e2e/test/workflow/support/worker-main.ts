/**
 * A workflow worker as its own process (so tests can kill -9 it): `node worker-main.js <grpc-address>`.
 * Uses the real `@dapr/durabletask-js` worker; reports activities and orchestrator turns to the parent over IPC.
 */
import { TaskHubGrpcWorker } from '@dapr/durabletask-js';
import type { WorkerMessage } from './messages.js';
import { registerTestWorkflows } from './test-workflows.js';
import { observeHistory } from './history-probe.js';

const address = process.argv[2];
if (!address) {
  process.stderr.write('usage: worker-main <grpc-address>\n');
  process.exit(2);
}

function report(msg: WorkerMessage): void {
  process.send?.(msg);
}

// The SDK announces each (re)connection only on the console; turn that line into an event for the test.
const log = console.log.bind(console);
console.log = (...args: unknown[]) => {
  if (typeof args[0] === 'string' && args[0].startsWith('Successfully connected')) report({ kind: 'connected' });
  log(...args);
};

const worker = new TaskHubGrpcWorker(address);
registerTestWorkflows(worker, report);
observeHistory(worker, report);
await worker.start();
process.on('SIGTERM', () => {
  void worker.stop().finally(() => process.exit(0));
});
