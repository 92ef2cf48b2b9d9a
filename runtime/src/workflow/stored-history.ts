/**
 * An instance's history as stored: one key per event (`history-000000`, …, written once), and a range of it read
 * for a page without the rest (`WorkflowEngine.historyRange`): a page of a 200,000-event history reads the
 * metadata and the page's keys, never the history.
 */
import type { ActorStateTxn } from '../actors/types.js';
import type { HistoryRange } from './engine.js';
import type { HistoryEvent } from './history.js';
import { decode } from './orchestration-messages.js';
import { decodeInstanceMeta, type InstanceMeta } from './stored-meta.js';

export const historyKey = (i: number) => `history-${String(i).padStart(6, '0')}`;

/** A stored event (history or inbox) that the metadata says exists. */
export function storedEvent(instanceId: string, key: string, value: Buffer | undefined): HistoryEvent {
  const e = decode<HistoryEvent>(value);
  if (!e) throw new Error(`workflow ${instanceId}: state key ${key} is missing`);
  return e;
}

/**
 * Events `from` … `from + size − 1` of the current run and its length. Called in the instance's turn, so both
 * come from one committed state (a turn that continues the instance as new cannot fall between the reads).
 * `active` is the instance in memory, if any: when it is the committed version its events are sliced from it.
 */
export async function readHistoryRange(
  state: Pick<ActorStateTxn, 'get' | 'getMany'>,
  instanceId: string,
  active: { meta: InstanceMeta; history: readonly HistoryEvent[] } | undefined,
  from: number,
  size: number,
): Promise<HistoryRange | undefined> {
  const meta = decodeInstanceMeta(await state.get('metadata'), instanceId);
  if (!meta) return undefined;
  const to = Math.min(meta.historyLength, from + size);
  if (active?.meta.version === meta.version) return { historyLength: meta.historyLength, events: active.history.slice(from, to) };
  const keys: string[] = [];
  for (let i = from; i < to; i++) keys.push(historyKey(i));
  const values = await state.getMany(keys);
  return { historyLength: meta.historyLength, events: values.map((v, i) => storedEvent(instanceId, keys[i]!, v)) };
}
