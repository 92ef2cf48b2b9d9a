import { createHash } from 'node:crypto';

/**
 * Which live host should own each partition: a pure function of the set of live host ids, so every host computes
 * the same answer from the same view and nobody needs to agree on anything beyond what the store holds.
 *
 * Rendezvous hashing with a load bound: each partition ranks the hosts by hash(host, partition) and goes to the
 * best-ranked host that still has room. Every host gets floor(partitions / hosts) or one more (only as many hosts
 * get one more as the remainder allows), so the shares differ by at most one; a join or leave moves little more
 * than the share of partitions that must move.
 */
export function desiredOwners(hostIds: readonly string[], partitions: number): string[] {
  const hosts = [...new Set(hostIds)].sort();
  if (hosts.length === 0) return [];
  const floor = Math.floor(partitions / hosts.length);
  let extrasLeft = partitions % hosts.length;
  const load = new Map(hosts.map((h) => [h, 0]));
  const hasRoom = (h: string) => {
    const n = load.get(h) ?? 0;
    return n < floor || (n === floor && extrasLeft > 0);
  };
  const owners: string[] = [];
  for (let p = 0; p < partitions; p++) {
    const ranked = hosts.map((h) => ({ h, score: score(h, p) })).sort((a, b) => (a.score < b.score ? 1 : a.score > b.score ? -1 : a.h < b.h ? -1 : 1));
    const chosen = ranked.find((r) => hasRoom(r.h))!.h;
    const n = load.get(chosen) ?? 0;
    if (n === floor) extrasLeft--;
    load.set(chosen, n + 1);
    owners.push(chosen);
  }
  return owners;
}

function score(hostId: string, partition: number): bigint {
  return createHash('sha1').update(`${hostId}/${partition}`).digest().readBigUInt64BE(0);
}
