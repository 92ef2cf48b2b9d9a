import { OWNERSHIP_PARTITIONS } from '../../state/placement-store.js';
import { actorIdHash } from '../keys.js';

/** The ownership partition of an actor, stable across processes: sha1(actorId) mod OWNERSHIP_PARTITIONS (the reminder partition hash). */
export function ownershipPartitionOf(actorId: string): number {
  return actorIdHash(actorId) % OWNERSHIP_PARTITIONS;
}
