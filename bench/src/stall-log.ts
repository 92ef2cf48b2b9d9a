/**
 * A preload for svcd that tells garbage-collector pauses from long synchronous JavaScript: it logs every
 * event-loop stall over 15 ms (when, how long, and how much of it the main thread was on a core) and every GC
 * pause over 3 ms, one line each, times in ms since start. On a busy machine a stall with little on-core time
 * was spent waiting for a core, not working.
 * Use: `STALL_LOG=/tmp/stalls.log SVCD_NODE_ARGS="--import=$PWD/bench/dist/src/stall-log.js" node bench/dist/src/fanout-huge.js`
 * (add `--trace-gc --trace-gc-nvp` for V8's phases of each collection).
 */
import { openSync, readFileSync, writeSync } from 'node:fs';
import { constants, performance, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';

const STALL_MS = 15;
const GC_MS = 3;
const TICK_MS = 5;

const out = openSync(process.env.STALL_LOG ?? `stalls-${process.pid}.log`, 'w');
const log = (line: string) => writeSync(out, `${line}\n`);

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? -1;
    if (e.duration > GC_MS) log(`gc ${e.startTime.toFixed(0)} ${GC_KINDS[kind] ?? kind} ${e.duration.toFixed(1)}`);
  }
}).observe({ entryTypes: ['gc'] });

/** The main thread's time on a core so far, in ms (the first field of its schedstat is nanoseconds). */
const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;
const onCoreMs = () => Number(readFileSync(SCHEDSTAT, 'latin1').split(' ')[0]) / 1e6;

let last = performance.now();
let lastOnCore = onCoreMs();
setInterval(() => {
  const now = performance.now();
  const onCore = onCoreMs();
  const stall = now - last - TICK_MS;
  if (stall > STALL_MS) log(`stall ${last.toFixed(0)} ${stall.toFixed(1)} on-core ${(onCore - lastOnCore).toFixed(1)}`);
  last = now;
  lastOnCore = onCore;
}, TICK_MS).unref();
