import { expect } from 'chai';
import { Fifo } from '../../src/util/fifo.js';

describe('Fifo', () => {
  it('keeps order across its compactions over 200,000 items', () => {
    const q = new Fifo<number>();
    for (let i = 0; i < 200_000; i++) q.push(i);
    for (let i = 0; i < 150_000; i++) expect(q.shift()).to.equal(i);
    q.push(200_000);
    expect(q.length).to.equal(50_001);
    const rest = q.takeAll();
    expect(rest[0]).to.equal(150_000);
    expect(rest.at(-1)).to.equal(200_000);
    expect(q.shift()).to.equal(undefined);
  });
});
