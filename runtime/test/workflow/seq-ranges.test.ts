import { expect } from 'chai';
import { addSeq, hasSeq, rangesOf, removeSeqs, seqsOf } from '../../src/workflow/seq-ranges.js';

describe('workflow inbox sequence ranges', () => {
  it('keeps consecutive members as one range and answers membership by binary search', () => {
    const ranges = rangesOf([5, 1, 2, 3, 9, 10]);
    expect(ranges).to.deep.equal([[1, 4], [5, 6], [9, 11]]);
    addSeq(ranges, 11);
    expect(ranges.at(-1)).to.deep.equal([9, 12]);
    const members = new Set(seqsOf(ranges));
    for (let s = -1; s < 14; s++) expect(hasSeq(ranges, s), `seq ${s}`).to.equal(members.has(s));
    expect(hasSeq([], 0)).to.equal(false);
  });

  it('removes members, splitting ranges, and ignores non-members', () => {
    expect(removeSeqs([[0, 10]], new Set([0, 4, 9, 42]))).to.deep.equal([[1, 4], [5, 9]]);
  });
});
