import { expect } from 'chai';
import { batchUnconditional, planDelete, planSet } from '../../src/state/write-plan.js';

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
