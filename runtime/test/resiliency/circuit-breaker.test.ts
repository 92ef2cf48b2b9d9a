import { status as GrpcStatus } from '@grpc/grpc-js';
import { expect } from 'chai';
import { isRuntimeError, type RuntimeError } from '../../src/errors/runtime-error.js';
import { CircuitBreaker, type BreakerStateChange } from '../../src/resiliency/circuit-breaker.js';
import { TargetPolicy } from '../../src/resiliency/policy.js';
import { breakerPolicy, flaky, pause, retryPolicy } from './policies.js';

async function outcome(p: Promise<unknown>): Promise<unknown> {
  try {
    return await p;
  } catch (err) {
    return err;
  }
}

const fail = async (): Promise<never> => {
  await pause(1);
  throw new Error('target down');
};
const succeed = async (): Promise<string> => {
  await pause(1);
  return 'ok';
};

describe('resiliency: circuit breakers', () => {
  let changes: string[];
  const breaker = (over: Parameters<typeof breakerPolicy>[0] = {}): CircuitBreaker =>
    new CircuitBreaker({ policy: breakerPolicy(over), target: "app 'orders'", onStateChange: (c: BreakerStateChange) => changes.push(`${c.from}->${c.to}`) });

  beforeEach(() => {
    changes = [];
  });

  it('opens after the trip condition holds, and then fails at once without making the call', async () => {
    const cb = breaker({ trip: 'consecutiveFailures >= 3' });
    for (let i = 0; i < 2; i++) await outcome(cb.execute(fail));
    expect(cb.state).to.equal('closed');
    await outcome(cb.execute(fail));
    expect(cb.state).to.equal('open');
    expect(changes).to.deep.equal(['closed->open']);

    let called = false;
    const err = (await outcome(cb.execute(() => ((called = true), succeed())))) as RuntimeError;
    expect(called).to.equal(false);
    expect(isRuntimeError(err, 'ERR_CIRCUIT_BREAKER_OPEN'), String(err)).to.equal(true);
    expect(err.message).to.equal("circuit breaker 'cb' for app 'orders' is open: the call was not made");
    expect([err.httpStatus, err.grpcStatus]).to.deep.equal([503, GrpcStatus.UNAVAILABLE]);
    expect(cb.stats()).to.deep.include({ state: 'open', opened: 1, rejected: 1 });
  });

  it('counts consecutive failures: a success in between starts them again', async () => {
    const cb = breaker({ trip: 'consecutiveFailures >= 3' });
    for (const work of [fail, fail, succeed, fail, fail]) await outcome(cb.execute(work));
    expect(cb.state).to.equal('closed');
    expect(cb.stats().counts).to.deep.equal({ requests: 5, totalFailures: 4, consecutiveFailures: 2, totalSuccesses: 1, consecutiveSuccesses: 0 });
  });

  it('is half-open after its timeout, and a successful probe closes it', async () => {
    const cb = breaker({ trip: 'consecutiveFailures >= 1', timeoutMs: 40 });
    await outcome(cb.execute(fail));
    expect(cb.state).to.equal('open');
    await pause(50);
    expect(cb.state).to.equal('half-open');
    expect(await cb.execute(succeed)).to.equal('ok');
    expect(cb.state).to.equal('closed');
    expect(changes).to.deep.equal(['closed->open', 'open->half-open', 'half-open->closed']);
  });

  it('opens again when the probe fails, for another timeout', async () => {
    const cb = breaker({ trip: 'consecutiveFailures >= 1', timeoutMs: 40 });
    await outcome(cb.execute(fail));
    await pause(50);
    expect(((await outcome(cb.execute(fail))) as Error).message).to.equal('target down');
    expect(cb.state).to.equal('open');
    expect(isRuntimeError(await outcome(cb.execute(succeed)), 'ERR_CIRCUIT_BREAKER_OPEN')).to.equal(true);
    expect(changes).to.deep.equal(['closed->open', 'open->half-open', 'half-open->open']);
    expect(cb.stats().opened).to.equal(2);
  });

  it('lets maxRequests probes through while half-open and fails the others at once', async () => {
    const cb = breaker({ trip: 'consecutiveFailures >= 1', timeoutMs: 20, maxRequests: 2 });
    await outcome(cb.execute(fail));
    await pause(30);
    let release!: (v: string) => void;
    const held = (): Promise<string> => new Promise((resolve) => (release = resolve));
    const probes = [cb.execute(held), cb.execute(succeed)];
    const third = (await outcome(cb.execute(succeed))) as Error;
    expect(isRuntimeError(third, 'ERR_CIRCUIT_BREAKER_OPEN')).to.equal(true);
    expect(third.message).to.match(/is half-open and its 2 probe call\(s\) are in flight/);
    expect(await probes[1]).to.equal('ok');
    expect(cb.state).to.equal('closed');
    release('late');
    expect(await probes[0]).to.equal('late');
  });

  it('restarts its counts every interval while closed', async () => {
    const cb = breaker({ trip: 'totalFailures >= 3', intervalMs: 40 });
    await outcome(cb.execute(fail));
    await outcome(cb.execute(fail));
    await pause(50);
    await outcome(cb.execute(fail));
    expect(cb.state).to.equal('closed');
    expect(cb.stats().counts.totalFailures).to.equal(1);
    await outcome(cb.execute(fail));
    await outcome(cb.execute(fail));
    expect(cb.state).to.equal('open');
  });

  it('does not count a call that started before the breaker changed state', async () => {
    const cb = breaker({ trip: 'consecutiveFailures >= 1', timeoutMs: 20 });
    let release!: (e: Error) => void;
    const slowFailure = cb.execute(() => new Promise<never>((_, reject) => (release = reject)));
    await outcome(cb.execute(fail)); // opens
    await pause(30);
    expect(await cb.execute(succeed)).to.equal('ok'); // the probe closes it
    release(new Error('old news'));
    await outcome(slowFailure);
    expect(cb.state).to.equal('closed');
  });

  it('makes retries wait their backoff while it is open, and lets the call through once it heals', async () => {
    const target = flaky(2);
    const cb = breaker({ trip: 'consecutiveFailures >= 2', timeoutMs: 45 });
    const policy = new TargetPolicy({ target: "app 'orders'", retry: retryPolicy({ durationMs: 20, maxRetries: -1 }), breakers: [cb] });
    const started = Date.now();
    expect(await policy.run(target.fn, { retryable: () => true })).to.equal('ok');
    expect(target.calls).to.equal(3); // the breaker kept the others from reaching the target
    expect(cb.stats().rejected).to.be.at.least(1);
    expect(Date.now() - started).to.be.at.least(45);
    expect(changes).to.deep.equal(['closed->open', 'open->half-open', 'half-open->closed']);
  });

  it('retries an open breaker only after each backoff, even when the failure is not otherwise retryable', async () => {
    const cb = breaker({ trip: 'consecutiveFailures >= 1', timeoutMs: 60_000 });
    await outcome(cb.execute(fail));
    const policy = new TargetPolicy({ target: "app 'orders'", retry: retryPolicy({ durationMs: 15, maxRetries: 3 }), breakers: [cb] });
    const started = Date.now();
    const err = await outcome(policy.run(succeed, { retryable: () => false }));
    expect(isRuntimeError(err, 'ERR_CIRCUIT_BREAKER_OPEN')).to.equal(true);
    expect(cb.stats().rejected).to.equal(4);
    expect(Date.now() - started).to.be.at.least(3 * 15 - 3);
  });
});
