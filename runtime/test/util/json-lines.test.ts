import { expect } from 'chai';
import { decodeJsonLines, encodeJsonLines } from '../../src/util/json-lines.js';

describe('JSON lines (long lists across the event loop)', () => {
  it('round-trips a head and thousands of items, newlines inside strings included', async () => {
    const items = Array.from({ length: 4500 }, (_, i) => ({ id: i, text: i % 7 === 0 ? 'two\nlines\r\n' : `item ${i}`, nested: [i, { deep: null }] }));
    const bytes = await encodeJsonLines({ plan: { seqs: [1, 2, 3] } }, items);
    const out = await decodeJsonLines<{ plan: { seqs: number[] } }, (typeof items)[number]>(bytes);
    expect(out.head).to.deep.equal({ plan: { seqs: [1, 2, 3] } });
    expect(out.items).to.deep.equal(items);
  });

  it('keeps an empty list empty and an absent head null', async () => {
    expect(await decodeJsonLines(await encodeJsonLines(undefined, []))).to.deep.equal({ head: null, items: [] });
  });
});
