import { expect } from 'chai';
import { isRuntimeError } from '../../src/errors/runtime-error.js';
import type { IndexEntry, IndexPage } from '../../src/actors/types.js';
import {
  BY_UPDATE_INDEX,
  continuationToken,
  encodeIndexEntry,
  InstanceIndex,
  instanceIdAfter,
  LIST_SCAN_BUDGET,
  LIST_SCAN_MS,
  matchesPurgeFilter,
  updateOrderKey,
} from '../../src/workflow/instance-index.js';
import type { InstanceFilter, InstanceSummary } from '../../src/workflow/engine.js';

/**
 * The by-update index of `count` RUNNING instances (`i-00000`, … updated one ms apart) and one COMPLETED
 * instance updated before all of them (the last entry in newest-first order), read through a listIndex that
 * advances `clock` by `msPerRead` per range read (a store that takes that long to read a chunk).
 */
function indexOf(count: number, msPerRead: number): { index: InstanceIndex; reads: IndexPage[] } {
  const entries: IndexEntry[] = [];
  const entry = (id: string, runtimeStatus: InstanceSummary['runtimeStatus'], at: number) =>
    entries.push({ key: updateOrderKey(at, id), value: encodeIndexEntry({ name: 'wf', runtimeStatus, createdAt: at, lastUpdatedAt: at }) });
  for (let i = 0; i < count; i++) entry(`i-${String(i).padStart(5, '0')}`, 'RUNNING', 1_000_000 + i);
  entry('done', 'COMPLETED', 1);
  entries.sort((a, b) => (a.key < b.key ? -1 : 1));
  let clock = 0;
  const reads: IndexPage[] = [];
  const runtime = {
    listIndex: (type: string, page: IndexPage) => {
      expect([type, page.index]).to.deep.equal(['wf-type', BY_UPDATE_INDEX]);
      reads.push(page);
      clock += msPerRead;
      let from = 0;
      for (let to = entries.length; from < to; ) {
        const mid = (from + to) >> 1;
        if (page.after !== undefined && entries[mid]!.key <= page.after) from = mid + 1;
        else to = mid;
      }
      return Promise.resolve(entries.slice(from, from + page.limit));
    },
  };
  return { index: new InstanceIndex(runtime, 'wf-type', () => clock), reads };
}

/** Follows the tokens to the end: the instances found and how many entries each call read. */
async function listAll(index: InstanceIndex, reads: IndexPage[], filter: InstanceFilter): Promise<{ found: string[]; entriesPerCall: number[] }> {
  const found: string[] = [];
  const entriesPerCall: number[] = [];
  let token: string | undefined;
  do {
    const before = reads.length;
    const page = await index.query(filter, 10, token);
    entriesPerCall.push(reads.slice(before).reduce((n, r) => n + r.limit, 0));
    found.push(...page.instances.map((i) => i.instanceId));
    token = page.continuationToken;
  } while (token !== undefined);
  return { found, entriesPerCall };
}

describe('workflow instance index: tokens and purge filters', () => {
  it('a continuation token is the last ID, opaque; anything not issued is ERR_MALFORMED_REQUEST', () => {
    for (const id of ['a', 'order-1', 'parent:0001:00ab']) {
      const token = continuationToken(id);
      expect(token).to.not.equal(id);
      expect(instanceIdAfter(token)).to.equal(id);
    }
    for (const forged of ['', 'order-1', 'YQ==', '%%%', continuationToken('a b'), continuationToken('x'.repeat(300))]) {
      let err: unknown;
      try {
        instanceIdAfter(forged);
      } catch (e) {
        err = e;
      }
      expect(isRuntimeError(err, 'ERR_MALFORMED_REQUEST'), forged).to.equal(true);
    }
  });

  it('matches created in [from, to), by status, and never an instance that is not finished', () => {
    const at = (createdAt: number, runtimeStatus: InstanceSummary['runtimeStatus']): InstanceSummary => ({ instanceId: 'i', name: 'wf', runtimeStatus, createdAt, lastUpdatedAt: createdAt });
    const window = { createdFrom: new Date(1000), createdTo: new Date(2000) };
    expect([999, 1000, 1999, 2000].map((t) => matchesPurgeFilter(at(t, 'COMPLETED'), window))).to.deep.equal([false, true, true, false]);
    expect(matchesPurgeFilter(at(1500, 'FAILED'), { statuses: ['COMPLETED'] })).to.equal(false);
    expect(matchesPurgeFilter(at(1500, 'FAILED'), { statuses: [] })).to.equal(true);
    for (const live of ['RUNNING', 'PENDING', 'SUSPENDED'] as const) {
      expect(matchesPurgeFilter(at(1500, live), { statuses: [live] }), live).to.equal(false);
      expect(matchesPurgeFilter(at(1500, live), {}), live).to.equal(false);
    }
  });

  it('a filtered listing call stops after LIST_SCAN_BUDGET entries or once LIST_SCAN_MS passed, and its tokens go on to every match', async () => {
    const filter: InstanceFilter = { statuses: ['COMPLETED'] };
    // A store that reads instantly: the entry budget bounds a call.
    const fast = indexOf(25_000, 0);
    const byEntries = await listAll(fast.index, fast.reads, filter);
    expect(byEntries.found).to.deep.equal(['done']);
    expect(byEntries.entriesPerCall.slice(0, -1)).to.deep.equal([LIST_SCAN_BUDGET, LIST_SCAN_BUDGET]);

    // A store that takes 8 ms a chunk: a call reads chunks until LIST_SCAN_MS passed, however few it matched.
    const slow = indexOf(25_000, 8);
    const byTime = await listAll(slow.index, slow.reads, filter);
    expect(byTime.found).to.deep.equal(['done']);
    const chunksPerCall = Math.ceil(LIST_SCAN_MS / 8);
    expect(slow.reads.length, 'range reads in all').to.be.at.most(byTime.entriesPerCall.length * chunksPerCall);
    for (const n of byTime.entriesPerCall.slice(0, -1)) expect(n).to.be.below(LIST_SCAN_BUDGET).and.above(0);

    // A page that fills in the first chunk is one read, whatever the clock.
    const page = await indexOf(100, 50).index.query({ statuses: ['RUNNING'] }, 10, undefined);
    expect(page.instances.map((i) => i.instanceId)).to.deep.equal(['i-00099', 'i-00098', 'i-00097', 'i-00096', 'i-00095', 'i-00094', 'i-00093', 'i-00092', 'i-00091', 'i-00090']);
    expect(page.continuationToken).to.be.a('string');
  });
});
