import { expect } from 'chai';
import { parseDueTime, parseGoDuration, parseIsoDuration, parsePeriod, parseTtl } from '../../src/actors/durations.js';
import { isRuntimeError } from '../../src/errors/runtime-error.js';

describe('actors: reminder time formats', () => {
  const now = Date.UTC(2026, 0, 1);

  it('parses Go durations', () => {
    expect(parseGoDuration('1h2m3.5s')).to.equal(3_723_500);
    expect(parseGoDuration('0h0m5s')).to.equal(5000);
    expect(parseGoDuration('250ms')).to.equal(250);
    expect(parseGoDuration('1500us')).to.equal(1.5);
    // Go writes micro as µ (U+00B5) or μ (U+03BC).
    expect(parseGoDuration('2500µs')).to.equal(2.5);
    expect(parseGoDuration('1m500μs')).to.equal(60_000.5);
    expect(parseGoDuration('0')).to.equal(0);
    expect(parseGoDuration('5')).to.equal(undefined);
    expect(parseGoDuration('5 s')).to.equal(undefined);
  });

  it('parses ISO 8601 durations', () => {
    expect(parseIsoDuration('PT1H30M')).to.equal(5_400_000);
    expect(parseIsoDuration('P1DT1S')).to.equal(86_401_000);
    expect(parseIsoDuration('PT0.5S')).to.equal(500);
    expect(parseIsoDuration('p1dt2h')).to.equal(93_600_000); // as @dapr/dapr sends Temporal.Duration text
    expect(parseIsoDuration('P')).to.equal(undefined);
    expect(parseIsoDuration('PT')).to.equal(undefined);
    expect(parseIsoDuration('1H')).to.equal(undefined);
  });

  it('reads due times as durations from now or RFC 3339 times', () => {
    expect(parseDueTime(undefined, now)).to.equal(now);
    expect(parseDueTime('', now)).to.equal(now);
    expect(parseDueTime('10s', now)).to.equal(now + 10_000);
    expect(parseDueTime('PT10S', now)).to.equal(now + 10_000);
    expect(parseDueTime('2026-01-01T00:01:00Z', now)).to.equal(now + 60_000);
    expect(parseDueTime('2026-01-01T01:01:00+01:00', now)).to.equal(now + 60_000);
  });

  it('reads periods with optional repetitions; zero or empty is one-shot', () => {
    expect(parsePeriod('5s')).to.deep.equal({ periodMs: 5000 });
    expect(parsePeriod('R3/PT1S')).to.deep.equal({ periodMs: 1000, repetitions: 3 });
    expect(parsePeriod('')).to.deep.equal({});
    expect(parsePeriod('0s')).to.deep.equal({});
  });

  it('reads TTLs as durations or times', () => {
    expect(parseTtl('1h', now)).to.equal(now + 3_600_000);
    expect(parseTtl('2026-01-02T00:00:00Z', now)).to.equal(now + 86_400_000);
    expect(parseTtl(undefined, now)).to.equal(undefined);
  });

  it('rejects malformed values with ERR_MALFORMED_REQUEST', () => {
    for (const bad of [() => parseDueTime('tomorrow', now), () => parseDueTime('-5s', now), () => parsePeriod('R0/PT1S'), () => parsePeriod('R2/x'), () => parseTtl('0s', now)]) {
      expect(() => bad()).to.throw().that.satisfies((e: unknown) => isRuntimeError(e, 'ERR_MALFORMED_REQUEST'));
    }
  });
});
