/**
 * Work items for the `GetWorkItems` stream, encoded by hand around history events encoded once. An orchestration
 * work item carries the instance's whole history every turn; encoding 100,000 events as objects each turn was
 * most of svcd's CPU in a large fan-out and blocked its event loop for hundreds of milliseconds. Here each
 * event's bytes are produced once (cached by event object) and a turn only copies them.
 * Field numbers (OrchestratorRequest 1–4, WorkItem 1 and 10) are those of `durabletask/orchestrator_service.proto`.
 */
import path from 'node:path';
import protobuf from 'protobufjs';
import { DURABLETASK_PROTO_FILE } from './durabletask.js';
import type { HistoryEvent } from './gen/HistoryEvent.js';
import { PROTO_ROOT } from './proto-root.js';

let historyEventType: protobuf.Type | undefined;

function eventType(): protobuf.Type {
  if (!historyEventType) {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(PROTO_ROOT, target));
    root.loadSync(DURABLETASK_PROTO_FILE, { keepCase: false });
    historyEventType = root.lookupType('HistoryEvent');
  }
  return historyEventType;
}

/** One history event in its wire form (as `toWireEvent` builds it) → protobuf bytes. */
export function encodeHistoryEvent(event: HistoryEvent): Uint8Array {
  const type = eventType();
  return type.encode(type.fromObject(event)).finish();
}

/** A whole `WorkItem{orchestratorRequest, completionToken}` from already encoded events. */
export function encodeOrchestratorWorkItem(
  instanceId: string,
  executionId: string | undefined,
  pastEvents: readonly Uint8Array[],
  newEvents: readonly Uint8Array[],
  completionToken: string,
): Buffer {
  const w = protobuf.Writer.create();
  w.uint32((1 << 3) | 2).fork(); // WorkItem.orchestratorRequest
  w.uint32((1 << 3) | 2).string(instanceId);
  if (executionId !== undefined) w.uint32((2 << 3) | 2).fork().uint32((1 << 3) | 2).string(executionId).ldelim(); // StringValue
  for (const e of pastEvents) w.uint32((3 << 3) | 2).bytes(e);
  for (const e of newEvents) w.uint32((4 << 3) | 2).bytes(e);
  w.ldelim();
  w.uint32((10 << 3) | 2).string(completionToken);
  const out = w.finish();
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}
