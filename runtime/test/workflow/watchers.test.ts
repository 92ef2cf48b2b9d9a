import { expect } from 'chai';
import type { WorkflowInstance } from '../../src/workflow/engine.js';
import { InstanceWatchers } from '../../src/workflow/watchers.js';

const instance = (runtimeStatus: WorkflowInstance['runtimeStatus']): WorkflowInstance => ({
  instanceId: 'i',
  name: 'wf',
  runtimeStatus,
  createdAt: new Date(0),
  lastUpdatedAt: new Date(0),
});

describe('workflow InstanceWatchers (event-driven waits)', () => {
  it('resolves at once when the condition already holds, and with undefined for an unknown instance', async () => {
    const w = new InstanceWatchers((id) => Promise.resolve(id === 'i' ? instance('COMPLETED') : undefined));
    expect((await w.waitUntil('i', (i) => i.runtimeStatus === 'COMPLETED', new AbortController().signal))?.runtimeStatus).to.equal('COMPLETED');
    expect(await w.waitUntil('other', () => true, new AbortController().signal)).to.equal(undefined);
    expect(w.size).to.equal(0);
  });

  it('re-reads only when notified, and resolves when the condition holds', async () => {
    let current = instance('RUNNING');
    let reads = 0;
    const w = new InstanceWatchers(() => {
      reads++;
      return Promise.resolve(current);
    });
    const done = w.waitUntil('i', (i) => i.runtimeStatus === 'COMPLETED', new AbortController().signal);
    await new Promise((r) => setImmediate(r));
    expect(reads).to.equal(1);
    w.notify('other');
    w.notify('i');
    await new Promise((r) => setImmediate(r));
    expect(reads).to.equal(2);
    current = instance('COMPLETED');
    w.notify('i');
    expect((await done)?.runtimeStatus).to.equal('COMPLETED');
    expect(w.size).to.equal(0);
  });

  it('rejects with an Error when the signal aborts and forgets the waiter', async () => {
    const w = new InstanceWatchers(() => Promise.resolve(instance('RUNNING')));
    const abort = new AbortController();
    const done = w.waitUntil('i', () => false, abort.signal);
    abort.abort(new Error('client went away'));
    let err: unknown;
    await done.catch((e: unknown) => (err = e));
    expect((err as Error).message).to.equal('client went away');
    expect(w.size).to.equal(0);
  });
});
