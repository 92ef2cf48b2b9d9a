/**
 * A set of inbox sequence numbers stored as half-open ranges `[from, to)`. Sequence numbers are handed out in
 * increasing order and mostly consumed oldest first, so a set of thousands of pending results is a range or
 * two: the instance metadata, written by every turn, stays a few bytes however many results wait.
 */
export type SeqRanges = [from: number, to: number][];

/** Adds `seq`, which must be greater than every member (sequence numbers only grow). */
export function addSeq(ranges: SeqRanges, seq: number): void {
  const last = ranges.at(-1);
  if (last && last[1] === seq) last[1] = seq + 1;
  else ranges.push([seq, seq + 1]);
}

/** The ranges without the given members (a new array; members not present are ignored). */
export function removeSeqs(ranges: SeqRanges, gone: ReadonlySet<number>): SeqRanges {
  if (gone.size === 0) return ranges;
  const out: SeqRanges = [];
  for (const [from, to] of ranges) {
    let start = from;
    for (let s = from; s < to; s++) {
      if (!gone.has(s)) continue;
      if (s > start) out.push([start, s]);
      start = s + 1;
    }
    if (start < to) out.push([start, to]);
  }
  return out;
}

/** Is `seq` a member (binary search: a turn checks 100,000 members against a range or two)? */
export function hasSeq(ranges: SeqRanges, seq: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [from, to] = ranges[mid] as [number, number];
    if (seq < from) hi = mid - 1;
    else if (seq >= to) lo = mid + 1;
    else return true;
  }
  return false;
}

export function seqsOf(ranges: SeqRanges): number[] {
  const out: number[] = [];
  for (const [from, to] of ranges) for (let s = from; s < to; s++) out.push(s);
  return out;
}

export function rangesOf(seqs: readonly number[]): SeqRanges {
  const out: SeqRanges = [];
  for (const s of [...seqs].sort((a, b) => a - b)) addSeq(out, s);
  return out;
}
