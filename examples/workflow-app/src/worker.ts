/**
 * The workflow worker: connects to svcd's gRPC API port (Durable Task protocol) and runs the order workflow.
 * `SVC_GRPC_ADDRESS` (default `localhost:50001`, the port `make run` uses).
 */
import { TaskHubGrpcWorker } from '@dapr/durabletask-js';
import { registerOrderWorkflow } from './order-workflow.js';
import { waitForSidecar } from './wait-for-sidecar.js';

const address = process.env.SVC_GRPC_ADDRESS ?? 'localhost:50001';
const worker = new TaskHubGrpcWorker(address);
registerOrderWorkflow(worker);
await waitForSidecar(address);
await worker.start();
console.log(`order worker started against ${address}; press Ctrl-C to stop`);

const stop = () => {
  void worker.stop().finally(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
