import type { WorkerConnection } from './work-items.js';

/** A worker connection as the HTTP API shows it (metadata, waiting view): its id on this svcd and its client's address. */
export interface WorkerView {
  id: number;
  peer?: string;
  /** The workers of another replica of this app, reached through it. */
  otherReplica?: true;
}

export function workerView(w: WorkerConnection): WorkerView {
  return { id: w.id, ...(w.peer !== undefined ? { peer: w.peer } : {}), ...(w.remote ? { otherReplica: true as const } : {}) };
}
