import { expect } from 'chai';
import { applyInOrder, batchUnconditional, planDelete, planSet, type VersionedKeySpace } from '../../src/state/write-plan.js';

const set = (key: string, value: string, etag?: string) => planSet({ key, value: Buffer.from(value), ...(etag ? { etag } : {}) });

describe('state write plan: batching unconditional writes', () => {
  it('collapses runs of unconditional writes (last write of a key wins) and keeps conditional writes in place', async () => {
    const steps = await batchUnconditional([set('a', '1'), set('b', '1'), planDelete({ key: 'a' }), set('c', '1', '3'), set('a', '2'), set('a', '3')]);
    expect(steps).to.have.length(3);
    expect(steps[0]).to.deep.equal({ sets: [{ key: 'b', value: Buffer.from('1') }], deletes: ['a'] });
    expect(steps[1]).to.include({ kind: 'set', key: 'c' });
    expect(steps[2]).to.deep.equal({ sets: [{ key: 'a', value: Buffer.from('3') }], deletes: [] });
  });
});

describe('state write plan: applying in order', () => {
  /** A key space over a map that records its calls; `next` false: one without `putNext`. */
  function space(next: boolean) {
    const stored = new Map<string, number>([['a', 4]]);
    const calls: string[] = [];
    const s: VersionedKeySpace = {
      current: (key) => (calls.push(`current ${key}`), stored.has(key) ? { version: stored.get(key)!, live: true } : undefined),
      put: (key, _value, version) => (calls.push(`put ${key} ${version}`), void stored.set(key, version)),
      remove: (key) => (calls.push(`remove ${key}`), void stored.delete(key)),
      ...(next ? { putNext: (key: string) => (calls.push(`putNext ${key}`), void stored.set(key, (stored.get(key) ?? 0) + 1)) } : {}),
    };
    return { s, stored, calls };
  }
  const writes = () => [set('a', '1'), set('b', '1'), planDelete({ key: 'c' }), set('a', '2', '5'), planDelete({ key: 'b', etag: '1' })];

  it('reads the current version only for conditional writes when the store sets in one step, with the same versions', () => {
    const oneStep = space(true);
    applyInOrder(writes(), oneStep.s);
    expect(oneStep.calls).to.deep.equal(['putNext a', 'putNext b', 'remove c', 'current a', 'put a 6', 'current b', 'remove b']);
    const twoSteps = space(false);
    applyInOrder(writes(), twoSteps.s);
    expect(twoSteps.calls).to.deep.equal(['current a', 'put a 5', 'current b', 'put b 1', 'current c', 'current a', 'put a 6', 'current b', 'remove b']);
    expect([...oneStep.stored]).to.deep.equal([...twoSteps.stored]);
  });
});
