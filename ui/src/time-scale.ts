/**
 * Where a time falls on the timeline, in percent of its width. Idle stretches (nothing running) that would take
 * more than GAP_SHARE of the width, and last more than MIN_CUT_MS, are cut to GAP_WIDTH and marked, so steps of
 * seconds around an hour of waiting stay readable; the ticks are labelled with the time since the start.
 */

/** An idle stretch drawn cut: it takes `width` percent from `x`. */
export interface Gap {
  from: number;
  to: number;
  x: number;
  width: number;
}

export interface Tick {
  x: number;
  label: string;
}

export interface TimeScale {
  x(t: number): number;
  gaps: Gap[];
  ticks: Tick[];
}

const GAP_SHARE = 0.2;
/** Milliseconds of idleness are not worth a break in the axis. */
const MIN_CUT_MS = 2000;
const GAP_WIDTH = 7;
/** Labels closer than this (percent) would overlap. */
const MIN_TICK_DISTANCE = 9;
const TICKS_WANTED = 7;
const NICE_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000];

interface Segment {
  from: number;
  to: number;
  /** Cut: drawn GAP_WIDTH wide whatever its length. */
  cut: boolean;
  x: number;
  width: number;
}

/** `busy`: the [start, end] of every step (a point is start = end), within [from, to]. */
export function timeScale(from: number, to: number, busy: readonly (readonly [number, number])[]): TimeScale {
  const span = Math.max(1, to - from);
  const segments = layout(split(from, to, busy, span));
  const x = (t: number): number => {
    const clamped = Math.min(to, Math.max(from, t));
    const s = segments.find((seg) => clamped <= seg.to) ?? segments[segments.length - 1]!;
    return s.x + (s.to > s.from ? ((clamped - s.from) / (s.to - s.from)) * s.width : 0);
  };
  const gaps = segments.filter((s) => s.cut).map(({ from: f, to: t, x: gx, width }) => ({ from: f, to: t, x: gx, width }));
  return { x, gaps, ticks: ticks(from, segments) };
}

/** The span as shown and idle segments, the idle ones cut when they would take more than GAP_SHARE of it. */
function split(from: number, to: number, busy: readonly (readonly [number, number])[], span: number): Omit<Segment, 'x' | 'width'>[] {
  // With no step at all there is nothing to make room for: the span is shown to scale.
  if (busy.length === 0) return [{ from, to, cut: false }];
  const sorted = busy.map(([s, e]) => [Math.max(from, s), Math.min(to, Math.max(s, e))] as const).sort((a, b) => a[0] - b[0]);
  const out: Omit<Segment, 'x' | 'width'>[] = [];
  let cursor = from;
  const idle = (until: number) => {
    if (until - cursor > Math.max(GAP_SHARE * span, MIN_CUT_MS)) {
      out.push({ from: cursor, to: until, cut: true });
      cursor = until;
    }
  };
  for (const [start, end] of sorted) {
    idle(start);
    cursor = Math.max(cursor, end);
  }
  idle(to);
  // What is not cut is shown to scale: fill the holes between the cuts.
  const shown: Omit<Segment, 'x' | 'width'>[] = [];
  let at = from;
  for (const gap of out) {
    if (gap.from > at) shown.push({ from: at, to: gap.from, cut: false });
    shown.push(gap);
    at = gap.to;
  }
  if (at < to || shown.length === 0) shown.push({ from: at, to: Math.max(at, to), cut: false });
  return shown;
}

function layout(segments: Omit<Segment, 'x' | 'width'>[]): Segment[] {
  const cuts = segments.filter((s) => s.cut).length;
  const scaled = segments.filter((s) => !s.cut).reduce((n, s) => n + (s.to - s.from), 0);
  const room = 100 - cuts * GAP_WIDTH;
  let x = 0;
  return segments.map((s) => {
    const width = s.cut ? GAP_WIDTH : scaled > 0 ? ((s.to - s.from) / scaled) * room : room / Math.max(1, segments.length - cuts);
    const seg = { ...s, x, width };
    x += width;
    return seg;
  });
}

/** Ticks at a round step over the time shown to scale, labelled with the time since `from`. */
function ticks(from: number, segments: readonly Segment[]): Tick[] {
  const scaled = segments.filter((s) => !s.cut).reduce((n, s) => n + (s.to - s.from), 0);
  const step = NICE_STEPS.find((n) => scaled / n <= TICKS_WANTED) ?? NICE_STEPS[NICE_STEPS.length - 1]!;
  const out: Tick[] = [];
  for (const [i, s] of segments.entries()) {
    if (s.cut) continue;
    // A label runs to the right of its tick: none so close to a cut that it would run into the cut's label, or to
    // the end that it would be cut off.
    const last = segments[i + 1]?.cut ? s.x + s.width - MIN_TICK_DISTANCE : 100 - MIN_TICK_DISTANCE / 2;
    for (let t = Math.ceil((s.from - from) / step) * step + from; t <= s.to; t += step) {
      const x = s.x + (s.to > s.from ? ((t - s.from) / (s.to - s.from)) * s.width : 0);
      if (x > last) break;
      if (out.length > 0 && x - out[out.length - 1]!.x < MIN_TICK_DISTANCE) continue;
      out.push({ x, label: elapsed(t - from, step) });
    }
  }
  return out;
}

/** Time since the start as a clock reads it (`1:05:30`, `4:05`), in seconds under a minute, as precise as the step. */
function elapsed(ms: number, step: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(step < 10 ? 3 : step < 100 ? 2 : step < 1000 ? 1 : 0)} s`;
  const total = Math.round(ms / 1000);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

