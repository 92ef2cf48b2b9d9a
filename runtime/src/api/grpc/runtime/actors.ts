/**
 * InvokeActor, GetActorState, ExecuteActorStateTransaction, reminders and timers on the public actor API (the
 * same gate as HTTP: internal actor types answer as if not hosted), with the same failure codes as HTTP.
 */
import type { ExecuteActorStateTransactionRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/ExecuteActorStateTransactionRequest.js';
import type { GetActorReminderRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/GetActorReminderRequest.js';
import type { GetActorReminderResponse } from '@svc/proto/gen/svc/proto/runtime/v1/GetActorReminderResponse.js';
import type { GetActorStateRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/GetActorStateRequest.js';
import type { GetActorStateResponse } from '@svc/proto/gen/svc/proto/runtime/v1/GetActorStateResponse.js';
import type { InvokeActorRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/InvokeActorRequest.js';
import type { InvokeActorResponse } from '@svc/proto/gen/svc/proto/runtime/v1/InvokeActorResponse.js';
import type { RegisterActorReminderRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/RegisterActorReminderRequest.js';
import type { RegisterActorTimerRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/RegisterActorTimerRequest.js';
import type { UnregisterActorReminderRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/UnregisterActorReminderRequest.js';
import type { UnregisterActorTimerRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/UnregisterActorTimerRequest.js';
import { formatGoDuration } from '../../../actors/durations.js';
import type { PublicActorApi } from '../../../actors/public-actors.js';
import { reminderOptions, timerOptions, type ScheduleFields } from '../../../actors/schedule-options.js';
import type { ActorStateOperation } from '../../../actors/types.js';
import { RuntimeError } from '../../../errors/runtime-error.js';
import type { Handler } from './handler.js';
import { malformedRequest } from '../../../errors/catalogue.js';

/** Reminder and timer data is JSON the app gets back as JSON: bytes that are not JSON are refused now, not at the fire. */
function jsonData(data: Buffer): Buffer | undefined {
  if (data.length === 0) return undefined;
  try {
    JSON.parse(data.toString('utf8'));
  } catch {
    throw malformedRequest('reminder and timer data must be JSON');
  }
  return data;
}

/** The text fields as sent; an empty string is an absent field (proto3 cannot tell them apart). */
function schedule(req: { dueTime: string; period: string; ttl: string; data: Buffer }): ScheduleFields {
  return {
    ...(req.dueTime ? { dueTime: req.dueTime } : {}),
    ...(req.period ? { period: req.period } : {}),
    ...(req.ttl ? { ttl: req.ttl } : {}),
    ...(jsonData(req.data) ? { data: req.data } : {}),
  };
}

function stateOps(req: ExecuteActorStateTransactionRequest__Output): ActorStateOperation[] {
  return req.operations.map((op, i): ActorStateOperation => {
    if (op.key === '') throw malformedRequest(`operation ${i}: key must not be empty`);
    if (op.operationType === 'upsert') return { operation: 'upsert', key: op.key, value: op.value?.value.length ? Buffer.from(op.value.value) : Buffer.from('null') };
    if (op.operationType === 'delete') return { operation: 'delete', key: op.key };
    throw malformedRequest(`operation ${i}: operationType must be "upsert" or "delete", got ${JSON.stringify(op.operationType)}`);
  });
}

export function actorHandlers(runtime: () => PublicActorApi) {
  const empty = {};
  return {
    InvokeActor: (async (req) => {
      const result = await runtime().invoke(req.actorType, req.actorId, req.method, req.data.length > 0 ? req.data : undefined);
      return { data: result ?? Buffer.alloc(0) };
    }) satisfies Handler<InvokeActorRequest__Output, InvokeActorResponse>,
    GetActorState: (async (req) => {
      const value = await runtime().getState(req.actorType, req.actorId, req.key);
      return { data: value ?? Buffer.alloc(0), metadata: {} };
    }) satisfies Handler<GetActorStateRequest__Output, GetActorStateResponse>,
    ExecuteActorStateTransaction: (async (req) => {
      const ops = stateOps(req);
      await runtime().applyState(req.actorType, req.actorId, ops);
      return empty;
    }) satisfies Handler<ExecuteActorStateTransactionRequest__Output, object>,
    RegisterActorReminder: (async (req) => {
      const opts = reminderOptions(schedule(req), Date.now());
      await runtime().createReminder(req.actorType, req.actorId, req.name, opts);
      return empty;
    }) satisfies Handler<RegisterActorReminderRequest__Output, object>,
    GetActorReminder: (async (req) => {
      const r = await runtime().getReminder(req.actorType, req.actorId, req.name);
      if (!r) throw new RuntimeError('ERR_ACTOR_REMINDER_NON_EXISTENT', `reminder ${req.name} of actor ${req.actorType}/${req.actorId} does not exist`);
      return {
        actorType: r.actorType,
        actorId: r.actorId,
        dueTime: r.dueTimeText ?? new Date(r.dueAt).toISOString(),
        period: r.periodText ?? (r.periodMs !== undefined ? formatGoDuration(r.periodMs) : ''),
        ...(r.data !== undefined ? { data: { type_url: '', value: r.data } } : {}),
        ...(r.expiresAt !== undefined ? { ttl: new Date(r.expiresAt).toISOString() } : {}),
      };
    }) satisfies Handler<GetActorReminderRequest__Output, GetActorReminderResponse>,
    UnregisterActorReminder: (async (req) => {
      await runtime().deleteReminder(req.actorType, req.actorId, req.name);
      return empty;
    }) satisfies Handler<UnregisterActorReminderRequest__Output, object>,
    RegisterActorTimer: (async (req) => {
      const opts = timerOptions({ ...schedule(req), ...(req.callback ? { callback: req.callback } : {}) }, Date.now());
      await runtime().createTimer(req.actorType, req.actorId, req.name, opts);
      return empty;
    }) satisfies Handler<RegisterActorTimerRequest__Output, object>,
    UnregisterActorTimer: (async (req) => {
      await runtime().deleteTimer(req.actorType, req.actorId, req.name);
      return empty;
    }) satisfies Handler<UnregisterActorTimerRequest__Output, object>,
  };
}
