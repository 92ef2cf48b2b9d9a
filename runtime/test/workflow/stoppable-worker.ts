/**
 * A Durable Task SDK worker in its own process, for tests that stop it (SIGSTOP) as a hung or frozen worker:
 * it runs the activity `work`, says so on stdout and then holds it for ten minutes.
 * Usage: node stoppable-worker.js <svcd gRPC address>
 */
import { TaskHubGrpcWorker } from '@dapr/durabletask-js';

const address = process.argv[2];
if (!address) throw new Error('usage: stoppable-worker.js <address>');
// The SDK logs every step on the console; only this worker's own lines go to stdout.
console.log = console.info = console.debug = () => undefined;

const worker = new TaskHubGrpcWorker(address);
worker.addNamedActivity('work', async (_ctx, input: unknown) => {
  process.stdout.write(`running ${JSON.stringify(input)}\n`);
  await new Promise((resolve) => setTimeout(resolve, 600_000));
  return 'from the stopped worker';
});
await worker.start();
process.stdout.write('worker started\n');
