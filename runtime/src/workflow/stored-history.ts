/**
 * An instance's history as stored: one key per event (`history-000000`, …, written once), and a range of it read
 * for a page without the rest (`WorkflowEngine.historyRange`): a page of a 200,000-event history reads the
 * metadata and the page's keys, never the history.
 */
import type { ActorStateTxn } from '../actors/types.js';
import type { HistoryEvent } from './history.js';
import { decode, encodeHistoryRange, encodeStoredHistoryRange } from './orchestration-messages.js';
import { decodeInstanceMeta, type InstanceMeta } from './stored-meta.js';

export const historyKey = (i: number) => `history-${String(i).padStart(6, '0')}`;

/** A stored event (history or inbox) that the metadata says exists. */
export function storedEvent(instanceId: string, key: string, value: Buffer | undefined): HistoryEvent {
  return decode<HistoryEvent>(storedEventBytes(instanceId, key, value))!;
}

function storedEventBytes(instanceId: string, key: string, value: Buffer | undefined): Buffer {
  if (value === undefined || value.length === 0) throw new Error(`workflow ${instanceId}: state key ${key} is missing`);
  return value;
}

/**
 * Events `from` … `from + size − 1` of the current run and its length, as the `historyRange` method answers them
 * (`decodeHistoryRange`). Called in the instance's turn, so both come from one committed state (a turn that
 * continues the instance as new cannot fall between the reads). `active` is the instance in memory, if any: when
 * it is the committed version its events are sliced from it; otherwise the stored events' bytes are the answer's
 * lines as they are (decoding and writing them again was most of the CPU of a page read from the store).
 */
export async function readHistoryRange(
  state: Pick<ActorStateTxn, 'get' | 'getMany'>,
  instanceId: string,
  active: { meta: InstanceMeta; history: readonly HistoryEvent[] } | undefined,
  from: number,
  size: number,
): Promise<Buffer | undefined> {
  const meta = decodeInstanceMeta(await state.get('metadata'), instanceId);
  if (!meta) return undefined;
  const to = Math.min(meta.historyLength, from + size);
  if (active?.meta.version === meta.version) return encodeHistoryRange({ historyLength: meta.historyLength, events: active.history.slice(from, to) });
  const keys: string[] = [];
  for (let i = from; i < to; i++) keys.push(historyKey(i));
  const values = await state.getMany(keys);
  return encodeStoredHistoryRange(meta.historyLength, values.map((v, i) => storedEventBytes(instanceId, keys[i]!, v)));
}
