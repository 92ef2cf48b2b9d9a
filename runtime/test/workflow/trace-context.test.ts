/** The trace contexts a run stores and hands out (trace-context.ts): what is accepted, what is derived. */
import { expect } from 'chai';
import { activityContext, activitySpanId, derivedSpanId, newSpanId, runContext, spanContextOf, storedContextOf, traceIdOf } from '../../src/workflow/trace-context.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('workflow trace contexts', () => {
  it('reads a W3C traceparent, and refuses what is not one (the start then traces under the active span)', () => {
    expect(spanContextOf({ traceParent: `00-${TRACE}-${SPAN}-01` })).to.deep.equal({ traceId: TRACE, spanId: SPAN, traceFlags: 1, isRemote: true });
    expect(spanContextOf({ traceParent: `00-${TRACE}-${SPAN}-00` })?.traceFlags, 'not sampled').to.equal(0);
    expect(spanContextOf({ traceParent: `01-${TRACE}-${SPAN}-01-extra` })?.spanId, 'a later version with more fields').to.equal(SPAN);
    for (const traceParent of ['', 'garbage', `ff-${TRACE}-${SPAN}-01`, `00-${'0'.repeat(32)}-${SPAN}-01`, `00-${TRACE}-${'0'.repeat(16)}-01`, `00-${TRACE.slice(1)}-${SPAN}-01`]) {
      expect(spanContextOf({ traceParent }), traceParent).to.equal(undefined);
    }
    expect(traceIdOf({ traceParent: `00-${TRACE}-${SPAN}-01` })).to.equal(TRACE);
    expect(traceIdOf(undefined)).to.equal(undefined);
  });

  it('stores only a valid, sampled context, with its trace state', () => {
    expect(storedContextOf({ traceId: TRACE, spanId: SPAN, traceFlags: 1 }, 'vendor=1')).to.deep.equal({ traceParent: `00-${TRACE}-${SPAN}-01`, traceState: 'vendor=1' });
    expect(storedContextOf({ traceId: TRACE, spanId: SPAN, traceFlags: 0 })).to.equal(undefined);
    expect(storedContextOf({ traceId: '0'.repeat(32), spanId: SPAN, traceFlags: 1 })).to.equal(undefined);
  });

  it('names a run’s span and each activity’s the same way every time, and apart from each other', () => {
    const run = { parent: { traceParent: `00-${TRACE}-${SPAN}-01`, traceState: 'vendor=1' }, spanId: newSpanId() };
    expect(run.spanId).to.match(/^[0-9a-f]{16}$/);
    expect(runContext(run)).to.deep.equal({ traceParent: `00-${TRACE}-${run.spanId}-01`, traceState: 'vendor=1' });
    expect(activitySpanId(run, 1)).to.equal(derivedSpanId(run.spanId, 'activity', 1));
    expect(activitySpanId(run, 1)).to.not.equal(activitySpanId(run, 2));
    expect(activitySpanId(run, 1)).to.not.equal(activitySpanId({ ...run, spanId: newSpanId() }, 1));
    expect(activityContext(run, 1)).to.deep.equal({ traceParent: `00-${TRACE}-${activitySpanId(run, 1)}-01`, traceState: 'vendor=1' });
    expect(runContext({ parent: { traceParent: 'garbage' }, spanId: run.spanId }), 'a stored context that is not one').to.equal(undefined);
  });
});
