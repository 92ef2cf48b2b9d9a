/**
 * A worker's orchestrator answer (`OrchestratorResponse`) split so it can be decoded in slices: decoding a
 * 100,000-action answer as one message blocked svcd's event loop for hundreds of milliseconds. The split only
 * walks the top-level fields (a tag and a length each); each action stays bytes until `decodeOrchestratorAction`.
 * Field numbers (OrchestratorResponse.actions = 2) are those of `durabletask/orchestrator_service.proto`.
 */
import protobuf from 'protobufjs';
import type { OrchestratorAction__Output } from './gen/OrchestratorAction.js';
import { LOADER_OPTIONS } from './proto-root.js';
import { durableTaskType } from './work-item-encoding.js';

const ACTIONS_FIELD = 2;
const LENGTH_DELIMITED = 2;

export interface SplitOrchestratorResponse {
  /** Every field but the actions, as a message of its own (decode it with the service's deserializer). */
  readonly head: Buffer;
  /** Each action's encoded `OrchestratorAction`, in order. */
  readonly actions: EncodedActions;
}

/**
 * The actions of an answer as byte ranges of it: the view of each is made only when it is read, by a decoder that
 * yields between slices. A view (a Buffer object) per action made at once by the split was a synchronous step of
 * 20–100 ms inside gRPC's deserializer for a 100,000-action answer.
 */
export class EncodedActions implements Iterable<Uint8Array> {
  constructor(
    private readonly bytes: Buffer,
    /** Start and end offset of each action, one pair after the other. */
    private readonly bounds: readonly number[],
  ) {}

  get length(): number {
    return this.bounds.length / 2;
  }

  *[Symbol.iterator](): Iterator<Uint8Array> {
    for (let i = 0; i < this.bounds.length; i += 2) yield this.bytes.subarray(this.bounds[i], this.bounds[i + 1]);
  }
}

export function splitOrchestratorResponse(bytes: Buffer): SplitOrchestratorResponse {
  const reader = protobuf.Reader.create(bytes);
  const head: Uint8Array[] = [];
  const bounds: number[] = [];
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const tag = reader.uint32();
    if (tag >>> 3 === ACTIONS_FIELD && (tag & 7) === LENGTH_DELIMITED) {
      const length = reader.uint32();
      bounds.push(reader.pos, reader.pos + length);
      reader.skip(length);
    } else {
      reader.skipType(tag & 7);
      head.push(bytes.subarray(start, reader.pos));
    }
  }
  return { head: Buffer.concat(head), actions: new EncodedActions(bytes, bounds) };
}

/** One action as proto-loader would have decoded it (the repository's loader options). */
export function decodeOrchestratorAction(bytes: Uint8Array): OrchestratorAction__Output {
  const type = durableTaskType('OrchestratorAction');
  return type.toObject(type.decode(bytes), LOADER_OPTIONS) as OrchestratorAction__Output;
}
