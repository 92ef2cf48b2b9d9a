import { expect } from 'chai';
import { isRuntimeError } from '../../src/errors/runtime-error.js';
import { continuationToken, instanceIdAfter, matchesPurgeFilter } from '../../src/workflow/instance-index.js';
import type { InstanceSummary } from '../../src/workflow/engine.js';

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
});
