/**
 * The reminder table's loads racing its unloads, as they do on a replica that acquires some partitions while it
 * hands others over (the survivor of a kill -9 while the restarted replica comes up): what a load read must be
 * installed unless its own partition left meanwhile, or the reminders of the acquired partitions never fire.
 */
import { expect } from 'chai';
import type { BulkGetItem, GetRequest } from '../../src/components/contracts/state-store.js';
import { ActorKeys } from '../../src/actors/keys.js';
import { ownershipPartitionOf } from '../../src/actors/placement/partitions.js';
import { ReminderTable } from '../../src/actors/reminder-table.js';
import { InMemoryStateStore } from '../../src/state/in-memory.js';

/** An in-memory store whose reads of reminder documents wait until `open()` while `hold()` is on. */
class HeldReadsStore extends InMemoryStateStore {
  #gate: Promise<void> | undefined;
  #open: (() => void) | undefined;
  reads = 0;

  hold(): void {
    this.#gate = new Promise((resolve) => (this.#open = resolve));
  }

  open(): void {
    this.#open?.();
    this.#gate = undefined;
  }

  override async bulkGet(reqs: readonly GetRequest[]): Promise<BulkGetItem[]> {
    this.reads++;
    const gate = this.#gate;
    if (gate) await gate;
    return super.bulkGet(reqs);
  }
}

const TYPE = 'job';
const keys = new ActorKeys('app');

/** Ids of actors in two different ownership partitions. */
function actorsInTwoPartitions(): { a: string; pa: number; b: string; pb: number } {
  const a = 'actor-0';
  const pa = ownershipPartitionOf(a);
  for (let i = 1; ; i++) {
    const b = `actor-${i}`;
    const pb = ownershipPartitionOf(b);
    if (pb !== pa) return { a, pa, b, pb };
  }
}

/** A store holding one reminder for each of the two actors, written by another host's table. */
async function storeWithReminders(a: string, b: string): Promise<HeldReadsStore> {
  const store = new HeldReadsStore();
  const writer = new ReminderTable(store, keys);
  for (const id of [a, b]) await writer.commit(TYPE, id, [{ name: 'fire', reminder: { dueAt: Date.now() + 60_000 } }], []);
  return store;
}

const names = (reminders: readonly { actorId: string }[]) => reminders.map((r) => r.actorId);

/** A new table over `store` (with `loaded` loaded first) whose load of `partition` is held in its read. */
async function heldLoad(store: HeldReadsStore, partition: number, loaded: number[] = []): Promise<{ table: ReminderTable; loading: Promise<{ actorId: string }[]> }> {
  const table = new ReminderTable(store, keys);
  await table.loadOwned(TYPE, loaded);
  store.hold();
  const loading = table.loadOwned(TYPE, [partition]);
  await new Promise((r) => setTimeout(r, 10));
  return { table, loading };
}

describe('actors: reminder table loads racing unloads', () => {
  it('installs what a load read when another partition was unloaded meanwhile', async () => {
    const { a, pa, b, pb } = actorsInTwoPartitions();
    const store = await storeWithReminders(a, b);
    const { table, loading } = await heldLoad(store, pa, [pb]);
    table.unloadOwned([pb]); // handed over while pa was being read
    store.open();
    expect(names(await loading)).to.deep.equal([a]);
    expect(table.peek(TYPE, a, 'fire'), 'loaded and kept').to.not.equal(undefined);
  });

  it('leaves out what a load read when its own partition left meanwhile', async () => {
    const { a, pa, b } = actorsInTwoPartitions();
    const store = await storeWithReminders(a, b);
    const { table, loading } = await heldLoad(store, pa);
    table.unloadOwned([pa]);
    store.open();
    expect(names(await loading)).to.deep.equal([]);
    expect(table.peek(TYPE, a, 'fire')).to.equal(undefined);
  });

  it('reads again for a partition acquired again while the read from before it left was in flight', async () => {
    const { a, pa, b } = actorsInTwoPartitions();
    const store = await storeWithReminders(a, b);
    const { table, loading: first } = await heldLoad(store, pa);
    table.unloadOwned([pa]);
    const again = table.loadOwned(TYPE, [pa]);
    const readsBefore = store.reads;
    store.open();
    await first;
    expect(names(await again)).to.deep.equal([a]);
    expect(store.reads, 'the documents were read once more').to.be.above(readsBefore);
  });
});
