/**
 * Work items for the `GetWorkItems` stream, encoded by hand around history events encoded once. An orchestration
 * work item carries the instance's whole history every turn; encoding 100,000 events as objects each turn was
 * most of svcd's CPU in a large fan-out and blocked its event loop for hundreds of milliseconds. Here the
 * caller keeps the history's bytes (a few large buffers, not one object per event) and a turn only copies them.
 * Field numbers (OrchestratorRequest 1–4, WorkItem 1 and 10) are those of `durabletask/orchestrator_service.proto`.
 */
import protobuf from 'protobufjs';
import { loadDurableTaskProto } from './durabletask.js';
import type { HistoryEvent } from './gen/HistoryEvent.js';

type HandEncodedType = 'HistoryEvent' | 'OrchestratorAction';
const types = new Map<HandEncodedType, protobuf.Type>();
let statusNumbers: Readonly<Record<string, number>> | undefined;

/**
 * The protocol's types for hand-made encoding and decoding (the same parse the service is served from), looked
 * up once: a lookup walks the namespace, and every turn encodes and decodes.
 */
export function durableTaskType(name: HandEncodedType): protobuf.Type {
  let type = types.get(name);
  if (!type) types.set(name, (type = loadDurableTaskProto().root.lookupType(name)));
  return type;
}

/** The number of an `OrchestrationStatus` name, as `encodeEventsField` takes enums. */
export function orchestrationStatusNumber(name: string): number {
  statusNumbers ??= loadDurableTaskProto().root.lookupEnum('OrchestrationStatus').values;
  const value = statusNumbers[name];
  if (value === undefined) throw new TypeError(`not an OrchestrationStatus: ${name}`);
  return value;
}

/**
 * Events as entries of the repeated `HistoryEvent` field `field` of `OrchestratorRequest` (3: past, 4: new).
 * Each event is encoded as given, not first copied into a message by `fromObject` (that copy was a third of the
 * encoding's time), so it must be in the shape the encoder reads: enums as numbers (`orchestrationStatusNumber`),
 * int64 as numbers, absent messages null or left out.
 */
export function encodeEventsField(field: 3 | 4, events: readonly HistoryEvent[]): Buffer {
  const type = durableTaskType('HistoryEvent');
  const w = protobuf.Writer.create();
  for (const e of events) type.encode(e, w.uint32((field << 3) | 2).fork()).ldelim();
  return toBuffer(w.finish());
}

/**
 * A whole `WorkItem{orchestratorRequest, completionToken}` from events already encoded as field entries
 * (`encodeEventsField`): the history's bytes are copied once into the item, never re-encoded.
 */
export function encodeOrchestratorWorkItem(
  instanceId: string,
  executionId: string | undefined,
  encodedEvents: readonly Uint8Array[],
  completionToken: string,
): Buffer {
  const head = protobuf.Writer.create();
  head.uint32((1 << 3) | 2).string(instanceId);
  if (executionId !== undefined) head.uint32((2 << 3) | 2).fork().uint32((1 << 3) | 2).string(executionId).ldelim(); // StringValue
  const headBytes = head.finish();
  const requestLength = encodedEvents.reduce((n, e) => n + e.byteLength, headBytes.byteLength);
  const opening = protobuf.Writer.create().uint32((1 << 3) | 2).uint32(requestLength).finish(); // WorkItem.orchestratorRequest
  const token = protobuf.Writer.create().uint32((10 << 3) | 2).string(completionToken).finish();
  return Buffer.concat([opening, headBytes, ...encodedEvents, token]);
}

function toBuffer(out: Uint8Array): Buffer {
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}
