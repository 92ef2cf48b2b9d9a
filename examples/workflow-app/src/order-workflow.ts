/* eslint-disable @typescript-eslint/require-await -- the SDK runs only async generators as workflows, and a workflow must never await anything itself (replay must be deterministic) */
import type { ActivityContext, OrchestrationContext, TaskHubGrpcWorker } from '@dapr/durabletask-js';
import { whenAny } from '@dapr/durabletask-js/task/index.js';
import type { Task } from '@dapr/durabletask-js/task/task.js';
import { callWithRetry, type RetryPolicy } from './retry.js';

/** The workflow input: what the customer ordered. */
export interface Order {
  item: string;
  quantity: number;
  customer: string;
  /** Demo knob: how many times the payment provider fails before it accepts the charge. */
  paymentFailures?: number;
}

export type OrderResult =
  | { status: 'completed'; orderId: string; total: number; approvedBy?: string; paymentAttempts: number; trackingNumber: string }
  | { status: 'rejected' | 'cancelled'; orderId: string; reason: string };

export interface Approval {
  approved: boolean;
  by: string;
}

interface Reservation {
  reservationId: string;
  total: number;
}

interface Parcel {
  orderId: string;
  weightKg: number;
}

const UNIT_PRICE = 25;
/** Orders above this total wait for a human approval (the `approval` event). */
const APPROVAL_THRESHOLD = 500;
const APPROVAL_TIMEOUT_MS = 10 * 60 * 1000;
/** The courier picks parcels up a little after packing; a durable timer waits for it. */
const PICKUP_DELAY_MS = 2000;
const PAYMENT_RETRY: RetryPolicy = { maxAttempts: 4, firstDelayMs: 500, backoffFactor: 2, maxDelayMs: 5000 };

function later(ctx: OrchestrationContext, ms: number): Task<unknown> {
  return ctx.createTimer(new Date(ctx.currentUtcDateTime.getTime() + ms));
}

/**
 * Reserve stock → (large orders) wait for approval, at most 10 minutes → charge the card, retrying the flaky
 * payment provider → ship through the `shipping` sub-workflow. Custom status tells the caller where it is.
 */
async function* orderWorkflow(ctx: OrchestrationContext, order: Order): AsyncGenerator<Task<unknown>, OrderResult, unknown> {
  const orderId = ctx.instanceId;
  const reservation = (yield ctx.callActivity('reserveInventory', order)) as Reservation;

  let approvedBy: string | undefined;
  if (reservation.total > APPROVAL_THRESHOLD) {
    ctx.setCustomStatus('waiting-for-approval');
    const approval = ctx.waitForExternalEvent('approval');
    const winner = yield whenAny([approval, later(ctx, APPROVAL_TIMEOUT_MS)]);
    const decision = winner === approval ? (approval.getResult() as Approval) : undefined;
    if (!decision?.approved) {
      yield ctx.callActivity('releaseInventory', reservation);
      ctx.setCustomStatus('released');
      const reason = decision ? `rejected by ${decision.by}` : 'approval timed out';
      return { status: decision ? 'rejected' : 'cancelled', orderId, reason };
    }
    approvedBy = decision.by;
  }

  ctx.setCustomStatus('charging');
  const payment: { attempt: number } = yield* callWithRetry(
    ctx,
    'chargePayment',
    { orderId, total: reservation.total, failures: order.paymentFailures ?? 0 },
    PAYMENT_RETRY,
  );

  ctx.setCustomStatus('shipping');
  const shipment = (yield ctx.callSubOrchestrator('shipping', { orderId, quantity: order.quantity }, `${orderId}-shipping`)) as { trackingNumber: string };
  ctx.setCustomStatus('done');
  return { status: 'completed', orderId, total: reservation.total, approvedBy, paymentAttempts: payment.attempt, trackingNumber: shipment.trackingNumber };
}

/** Sub-workflow: pack, wait for the courier (durable timer), hand over. */
async function* shippingWorkflow(ctx: OrchestrationContext, req: { orderId: string; quantity: number }): AsyncGenerator<Task<unknown>, unknown, unknown> {
  const parcel = (yield ctx.callActivity('packParcel', req)) as Parcel;
  yield later(ctx, PICKUP_DELAY_MS);
  return yield ctx.callActivity('handToCourier', parcel);
}

// Activities: where side effects happen. They may run more than once (at-least-once), so each is idempotent
// per order: the IDs they return derive from the order ID.

function reserveInventory(ctx: ActivityContext, order: Order): Reservation {
  console.log(`[${ctx.orchestrationId}] reserving ${order.quantity} × ${order.item} for ${order.customer}`);
  return { reservationId: `res-${ctx.orchestrationId}`, total: order.quantity * UNIT_PRICE };
}

function releaseInventory(ctx: ActivityContext, reservation: Reservation): void {
  console.log(`[${ctx.orchestrationId}] releasing reservation ${reservation.reservationId}`);
}

function chargePayment(ctx: ActivityContext, req: { orderId: string; total: number; failures: number; attempt: number }): { attempt: number } {
  if (req.attempt <= req.failures) {
    console.log(`[${req.orderId}] payment attempt ${req.attempt} failed`);
    throw new Error(`payment provider unavailable (attempt ${req.attempt})`);
  }
  console.log(`[${req.orderId}] charged ${req.total} on attempt ${req.attempt}`);
  return { attempt: req.attempt };
}

function packParcel(ctx: ActivityContext, req: { orderId: string; quantity: number }): Parcel {
  console.log(`[${ctx.orchestrationId}] packing order ${req.orderId}`);
  return { orderId: req.orderId, weightKg: req.quantity * 0.2 };
}

/**
 * With `COURIER_APP_ID` set, the courier service (src/courier-service.ts) books the pick-up: called through this
 * app's sidecar (`/v1.0/invoke/<courier>/method/pickups`), which finds the courier's sidecar. Without it, the
 * tracking number is made here, so the example runs with no second service.
 */
async function handToCourier(ctx: ActivityContext, parcel: Parcel): Promise<{ trackingNumber: string }> {
  const courier = process.env.COURIER_APP_ID;
  if (!courier) {
    console.log(`[${ctx.orchestrationId}] courier picked up ${parcel.weightKg.toFixed(1)} kg`);
    return { trackingNumber: `TRK-${parcel.orderId}` };
  }
  const sidecar = `http://127.0.0.1:${process.env.SVC_HTTP_PORT ?? process.env.DAPR_HTTP_PORT ?? 3500}`;
  const res = await fetch(`${sidecar}/v1.0/invoke/${courier}/method/pickups`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(parcel) });
  if (!res.ok) throw new Error(`the courier (${courier}) answered ${res.status}: ${await res.text()}`);
  const { trackingNumber } = (await res.json()) as { trackingNumber: string };
  console.log(`[${ctx.orchestrationId}] ${courier} booked the pick-up: ${trackingNumber}`);
  return { trackingNumber };
}

export function registerOrderWorkflow(worker: TaskHubGrpcWorker): void {
  worker.addNamedOrchestrator('order', orderWorkflow);
  worker.addNamedOrchestrator('shipping', shippingWorkflow);
  worker.addNamedActivity('reserveInventory', reserveInventory);
  worker.addNamedActivity('releaseInventory', releaseInventory);
  worker.addNamedActivity('chargePayment', chargePayment);
  worker.addNamedActivity('packParcel', packParcel);
  worker.addNamedActivity('handToCourier', handToCourier);
}
