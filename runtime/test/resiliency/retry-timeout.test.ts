import { status as GrpcStatus } from '@grpc/grpc-js';
import { expect } from 'chai';
import { isRuntimeError, type RuntimeError } from '../../src/errors/runtime-error.js';
import { TargetPolicy } from '../../src/resiliency/policy.js';
import { backoffDelay } from '../../src/resiliency/retry.js';
import { flaky, pause, retryPolicy, timeoutPolicy } from './policies.js';

const always = { retryable: () => true };
const never = { retryable: () => false };

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  return expect.fail('expected a rejection');
}

describe('resiliency: retries', () => {
  it('retries a failing async function until it answers, waiting the constant duration between attempts', async () => {
    const target = flaky(2);
    const policy = new TargetPolicy({ target: "app 'b'", retry: retryPolicy({ durationMs: 15, maxRetries: 3 }) });
    const started = Date.now();
    expect(await policy.run(target.fn, always)).to.equal('ok');
    expect(target.calls).to.equal(3);
    expect(Date.now() - started).to.be.at.least(2 * 15 - 2); // two waits (timers may fire a millisecond early)
  });

  it('makes maxRetries retries and then fails with the last failure', async () => {
    const target = flaky(100);
    const err = await rejection(new TargetPolicy({ target: 't', retry: retryPolicy({ maxRetries: 3, durationMs: 1 }) }).run(target.fn, always));
    expect(target.calls).to.equal(4);
    expect((err as Error).message).to.equal('failure 4');
  });

  it('retries forever with maxRetries -1, until the call answers', async () => {
    const target = flaky(7);
    expect(await new TargetPolicy({ target: 't', retry: retryPolicy({ maxRetries: -1, durationMs: 1 }) }).run(target.fn, always)).to.equal('ok');
    expect(target.calls).to.equal(8);
  });

  it('makes one attempt when the failure is not retryable, maxRetries is 0 or there is no policy', async () => {
    for (const [policy, opts] of [
      [new TargetPolicy({ target: 't', retry: retryPolicy({ durationMs: 1 }) }), never],
      [new TargetPolicy({ target: 't', retry: retryPolicy({ maxRetries: 0 }) }), always],
      [new TargetPolicy({ target: 't' }), always],
    ] as const) {
      const target = flaky(1);
      expect((await rejection(policy.run(target.fn, opts)) as Error).message).to.equal('failure 1');
      expect(target.calls).to.equal(1);
    }
  });

  it('asks retryable about each failure', async () => {
    const target = flaky(5);
    const seen: string[] = [];
    const retryable = (err: unknown): boolean => {
      seen.push((err as Error).message);
      return seen.length < 2;
    };
    await rejection(new TargetPolicy({ target: 't', retry: retryPolicy({ durationMs: 1, maxRetries: 10 }) }).run(target.fn, { retryable }));
    expect(seen).to.deep.equal(['failure 1', 'failure 2']);
    expect(target.calls).to.equal(2);
  });

  it('stops retrying when the caller aborts, also in the middle of a wait', async () => {
    const target = flaky(1000);
    const caller = new AbortController();
    setTimeout(() => caller.abort(new Error('client went away')), 40);
    await rejection(new TargetPolicy({ target: 't', retry: retryPolicy({ durationMs: 15, maxRetries: -1 }) }).run(target.fn, { ...always, signal: caller.signal }));
    const made = target.calls;
    expect(made).to.be.within(1, 4);
    await pause(50);
    expect(target.calls).to.equal(made);
  });

  it('grows exponential waits from initialInterval, spread ±50%, capped at maxInterval', () => {
    const exp = retryPolicy({ policy: 'exponential', initialIntervalMs: 500, maxIntervalMs: 5000 });
    const middle = (): number => 0.5;
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(exp, n, middle))).to.deep.equal([500, 1000, 2000, 4000, 5000, 5000]);
    expect(backoffDelay(exp, 2, () => 0)).to.equal(500); // -50%
    expect(backoffDelay(exp, 2, () => 0.999)).to.equal(1499); // +50%
    expect(backoffDelay(exp, 4, () => 0.999)).to.equal(5000); // 6000 would pass the cap
    expect(backoffDelay(exp, 5000, () => 0.9)).to.equal(5000); // 2^4999 is Infinity, still capped
    const spread = new Set(Array.from({ length: 20 }, () => backoffDelay(exp, 1)));
    expect(spread.size).to.be.greaterThan(1);
    expect(Math.min(...spread)).to.be.at.least(250);
    expect(Math.max(...spread)).to.be.at.most(750);
    expect(backoffDelay(retryPolicy({ durationMs: 70 }), 9)).to.equal(70);
  });

  it('tells callers which statuses its matching list retries', () => {
    const matching = { http: [[429, 429], [500, 599]] as const };
    const policy = new TargetPolicy({ target: 't', retry: retryPolicy({ matching }) });
    expect([429, 503, 404, 200].map((code) => policy.retriesStatus('http', code))).to.deep.equal([true, true, false, false]);
    expect(policy.retriesStatus('grpc', GrpcStatus.INTERNAL)).to.equal(true); // no gRPC list: every code
    expect(new TargetPolicy({ target: 't' }).retriesStatus('http', 503)).to.equal(false); // no retry policy
  });
});

describe('resiliency: timeouts', () => {
  /** An attempt that answers after `ms` unless its signal is aborted, in which case it never settles. */
  function slow(ms: number) {
    const seen = { signals: [] as AbortSignal[] };
    const fn = (signal: AbortSignal): Promise<string> => {
      seen.signals.push(signal);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve('late answer'), ms);
        signal.addEventListener('abort', () => clearTimeout(timer));
      });
    };
    return { seen, fn };
  }

  it("aborts a slow attempt's signal and fails with ERR_RESILIENCY_TIMEOUT naming the target and the timeout", async () => {
    const attempt = slow(5000);
    const started = Date.now();
    const err = (await rejection(new TargetPolicy({ target: "app 'orders'", timeout: timeoutPolicy(30) }).run(attempt.fn, never))) as RuntimeError;
    expect(Date.now() - started).to.be.below(2000);
    expect(isRuntimeError(err, 'ERR_RESILIENCY_TIMEOUT'), String(err)).to.equal(true);
    expect(err.message).to.equal("app 'orders' did not answer within its timeout 'quick' (30ms)");
    expect([err.httpStatus, err.grpcStatus]).to.deep.equal([504, GrpcStatus.DEADLINE_EXCEEDED]);
    expect(attempt.seen.signals[0]!.aborted).to.equal(true);
    expect(attempt.seen.signals[0]!.reason).to.equal(err);
  });

  it('lets an attempt that answers in time through, with its signal left alone', async () => {
    const attempt = slow(5);
    expect(await new TargetPolicy({ target: 't', timeout: timeoutPolicy(500) }).run(attempt.fn, never)).to.equal('late answer');
    expect(attempt.seen.signals[0]!.aborted).to.equal(false);
  });

  it('times out each attempt on its own: a retry gets a fresh signal', async () => {
    let calls = 0;
    const fn = (signal: AbortSignal): Promise<string> => (++calls === 1 ? slow(5000).fn(signal) : Promise.resolve(`answer ${calls}`));
    const retryable = (err: unknown): boolean => isRuntimeError(err, 'ERR_RESILIENCY_TIMEOUT');
    const policy = new TargetPolicy({ target: 't', timeout: timeoutPolicy(20), retry: retryPolicy({ durationMs: 1 }) });
    expect(await policy.run(fn, { retryable })).to.equal('answer 2');
  });

  it("passes the caller's abort on to the attempt's signal, with or without a timeout", async () => {
    for (const timeout of [timeoutPolicy(5000), undefined]) {
      const caller = new AbortController();
      let attemptSignal: AbortSignal | undefined;
      setTimeout(() => caller.abort(new Error('client went away')), 10);
      const run = new TargetPolicy({ target: 't', timeout }).run((signal) => {
        attemptSignal = signal;
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
      }, { ...never, signal: caller.signal });
      expect(((await rejection(run)) as Error).message).to.equal('client went away');
      expect(attemptSignal!.aborted).to.equal(true);
    }
  });
});
