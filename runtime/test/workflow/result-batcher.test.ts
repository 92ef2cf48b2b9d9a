import { expect } from 'chai';
import { ResultBatcher } from '../../src/workflow/result-batcher.js';

/** A recorder whose calls finish when the test says so. */
function controlledRecorder() {
  const calls: { instanceId: string; items: number[]; finish: (err?: Error) => void }[] = [];
  const record = (instanceId: string, items: number[]) =>
    new Promise<void>((resolve, reject) => calls.push({ instanceId, items, finish: (err) => (err ? reject(err) : resolve()) }));
  return { calls, record };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('workflow ResultBatcher (activity results recorded in batches per instance)', () => {
  it('sends the results of one event-loop turn together, and everything that arrived meanwhile as the next batch, per instance', async () => {
    const { calls, record } = controlledRecorder();
    const batcher = new ResultBatcher<number>(record);
    const first = [1, 2].map((n) => batcher.add('a', n));
    const other = batcher.add('b', 9);
    expect(calls, 'nothing leaves before the turn ends').to.deep.equal([]);
    await settle();
    expect(calls.map((c) => [c.instanceId, c.items])).to.deep.equal([['a', [1, 2]], ['b', [9]]]);
    const waiting = [3, 4].map((n) => batcher.add('a', n));
    await settle();
    expect(calls, 'a batch of this instance is being recorded').to.have.length(2);
    waiting.push(batcher.add('a', 5));
    calls[0]!.finish();
    await Promise.all(first);
    await settle();
    expect(calls[2]).to.include({ instanceId: 'a' });
    expect(calls[2]!.items).to.deep.equal([3, 4, 5]);
    calls[2]!.finish();
    calls[1]!.finish();
    await Promise.all([...waiting, other]);
  });

  it('starts anew once an instance has nothing waiting', async () => {
    const { calls, record } = controlledRecorder();
    const batcher = new ResultBatcher<number>(record);
    const first = batcher.add('a', 1);
    await settle();
    calls[0]!.finish();
    await first;
    await settle();
    const second = batcher.add('a', 2);
    await settle();
    expect(calls.map((c) => c.items)).to.deep.equal([[1], [2]]);
    calls[1]!.finish();
    await second;
  });

  it('fails every caller of a failed batch, and goes on with the next one', async () => {
    const { calls, record } = controlledRecorder();
    const batcher = new ResultBatcher<number>(record);
    const first = batcher.add('a', 1);
    await settle();
    const second = [batcher.add('a', 2), batcher.add('a', 3)];
    calls[0]!.finish();
    await first;
    await settle();
    calls[1]!.finish(new Error('store down'));
    const outcomes = await Promise.allSettled(second);
    expect(outcomes.map((o) => o.status)).to.deep.equal(['rejected', 'rejected']);
    const third = batcher.add('a', 4);
    await settle();
    expect(calls[2]!.items).to.deep.equal([4]);
    calls[2]!.finish();
    await third;
  });

  it('keeps a batch to 5,000 results however many wait', async () => {
    const { calls, record } = controlledRecorder();
    const batcher = new ResultBatcher<number>(record);
    const all = Array.from({ length: 12_001 }, (_, i) => batcher.add('a', i));
    await settle();
    for (let i = 0; i < 3; i++) {
      calls[i]!.finish();
      await settle();
    }
    expect(calls.map((c) => c.items.length)).to.deep.equal([5000, 5000, 2001]);
    await Promise.all(all);
  });
});
