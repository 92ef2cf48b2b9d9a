import { expect } from 'chai';
import { decodeJsonLines, encodeJsonLines, joinJsonLines } from '../../src/util/json-lines.js';

describe('JSON lines (long lists across the event loop)', () => {
  it('round-trips a head and thousands of items, newlines inside strings included', async () => {
    const items = Array.from({ length: 4500 }, (_, i) => ({ id: i, text: i % 7 === 0 ? 'two\nlines\r\n' : `item ${i}`, nested: [i, { deep: null }] }));
    const bytes = await encodeJsonLines({ plan: { seqs: [1, 2, 3] } }, items);
    const out = await decodeJsonLines<{ plan: { seqs: number[] } }, (typeof items)[number]>(bytes);
    expect(out.head).to.deep.equal({ plan: { seqs: [1, 2, 3] } });
    expect(out.items).to.deep.equal(items);
  });

  it('joins items that are JSON already into the same bytes as encoding them, newlines inside strings included', async () => {
    const items = Array.from({ length: 300 }, (_, i) => ({ id: i, text: i % 3 === 0 ? 'two\nlines\r\n' : `item ${i}` }));
    const joined = joinJsonLines({ historyLength: 300 }, items.map((item) => Buffer.from(JSON.stringify(item))));
    expect(joined.equals(await encodeJsonLines({ historyLength: 300 }, items))).to.equal(true);
    expect((await decodeJsonLines(joined)).items).to.deep.equal(items);
    expect(await decodeJsonLines(joinJsonLines(null, []))).to.deep.equal({ head: null, items: [] });
  });

  it('keeps an empty list empty and an absent head null', async () => {
    expect(await decodeJsonLines(await encodeJsonLines(undefined, []))).to.deep.equal({ head: null, items: [] });
  });
});
