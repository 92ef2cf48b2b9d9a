/**
 * A client that places one order through the Durable Task client API, approves it, and prints the result: `npm run order -w @svc/example-workflow-app -- [quantity] [paymentFailures]`.
 */
import { TaskHubGrpcClient } from '@dapr/durabletask-js';
import type { Order } from './order-workflow.js';

const address = process.env.SVC_GRPC_ADDRESS ?? 'localhost:50001';
const order: Order = { item: 'paperclips', quantity: Number(process.argv[2] ?? 30), customer: 'ada', paymentFailures: Number(process.argv[3] ?? 1) };
const client = new TaskHubGrpcClient(address);

const id = await client.scheduleNewOrchestration('order', order);
// Approve at once: an event raised before the workflow waits for it is kept until it does (small orders never
// wait, and the event is simply never read).
await client.raiseOrchestrationEvent(id, 'approval', { approved: true, by: 'grace' });
const done = await client.waitForOrchestrationCompletion(id, true, 60);
console.log(`order ${id}: ${done ? JSON.stringify({ status: done.runtimeStatus, output: JSON.parse(done.serializedOutput ?? 'null') as unknown }) : 'not found'}`);
await client.stop();
process.exit(0);
