import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import * as yaml from 'js-yaml';
import { parseResiliencySpec } from '../../src/resiliency/resiliency-spec.js';
import { compileTrip } from '../../src/resiliency/trip-expression.js';
import { expectRuntimeError } from '../support/expect-runtime-error.js';
import { DAPR_EXAMPLE } from './dapr-example.js';

/** A small document with `spec` patched in. */
function doc(spec: Record<string, unknown>, top: Record<string, unknown> = {}): unknown {
  return { apiVersion: 'svc.io/v1alpha1', kind: 'Resiliency', metadata: { name: 'r' }, spec, ...top };
}

const invalid = (fn: () => unknown, message: RegExp): void => expectRuntimeError(fn, 'ERR_RESILIENCY_INVALID', message);

describe('Resiliency documents', () => {
  it("parses Dapr's documented example, with Dapr's defaults where it leaves fields out", () => {
    const spec = parseResiliencySpec(yaml.load(DAPR_EXAMPLE), 'file r.yaml');
    expect(spec).to.include({ name: 'myresiliency', source: 'file r.yaml' });
    expect(spec.scopes).to.deep.equal(['app1', 'app2']);

    const appB = spec.targets.apps.get('appB')!;
    expect(appB.field).to.equal('spec.targets.apps.appB');
    expect(appB.timeout).to.deep.equal({ name: 'general', ms: 5000 });
    expect(appB.retry).to.deep.include({ name: 'important', policy: 'constant', durationMs: 5000, maxRetries: 30 });
    expect(appB.circuitBreaker).to.include({ name: 'simpleCB', maxRequests: 1, intervalMs: 0, timeoutMs: 30_000, trip: 'consecutiveFailures >= 5' });

    const actor = spec.targets.actors.get('myActorType')!;
    expect(actor).to.include({ breakerScope: 'both', breakerCacheSize: 5000 });

    const store = spec.targets.outbound.get('statestore1')!;
    expect(store.retry).to.deep.include({ name: 'retryForever', policy: 'exponential', initialIntervalMs: 500, maxIntervalMs: 15_000, maxRetries: -1 });
    expect(spec.targets.outbound.get('pubsub1')!.circuitBreaker).to.include({ name: 'pubsubCB', intervalMs: 8000, timeoutMs: 45_000 });
    expect([...spec.targets.inbound.keys()]).to.deep.equal(['pubsub2']);
    expect(spec.targets.inbound.get('pubsub2')!.field).to.equal('spec.targets.components.pubsub2.inbound');
  });

  it('fills defaults for a bare retry and breaker and reads matching lists', () => {
    const spec = parseResiliencySpec(
      doc({
        policies: { retries: { r: { matching: { httpStatusCodes: '429,500-599', gRPCStatusCodes: 14 } } }, circuitBreakers: { cb: {} } },
        targets: { apps: { a: { retry: 'r', circuitBreaker: 'cb' } } },
      }),
      'f',
    );
    const a = spec.targets.apps.get('a')!;
    expect(a.retry).to.deep.equal({
      name: 'r', policy: 'constant', durationMs: 5000, initialIntervalMs: 500, maxIntervalMs: 60_000, maxRetries: -1,
      matching: { http: [[429, 429], [500, 599]], grpc: [[14, 14]] },
    });
    expect(a.circuitBreaker).to.include({ maxRequests: 1, intervalMs: 0, timeoutMs: 60_000, trip: 'consecutiveFailures > 5' });
    expect(a.timeout).to.equal(undefined);
    expect(spec.scopes).to.deep.equal([]);
  });

  it('names the document and the field in every error', () => {
    const policies = { timeouts: { t: '1s' }, retries: { r: {} }, circuitBreakers: { cb: {} } };
    const target = (t: Record<string, unknown>) => doc({ policies, targets: { apps: { appB: t } } });
    invalid(() => parseResiliencySpec(target({ retry: 'nope' }), 'file a.yaml'), /^file a\.yaml: spec\.targets\.apps\.appB\.retry names no policy in spec\.policies\.retries: "nope" \(defined: r\)/);
    invalid(() => parseResiliencySpec(target({ timeout: 'general' }), 'f'), /spec\.targets\.apps\.appB\.timeout names no policy in spec\.policies\.timeouts/);
    invalid(() => parseResiliencySpec(target({ circuitBreaker: 'x' }), 'f'), /appB\.circuitBreaker names no policy/);
    invalid(
      () => parseResiliencySpec(doc({ policies, targets: { components: { s: { inbound: { retry: 'x' } } } } }), 'f'),
      /spec\.targets\.components\.s\.inbound\.retry names no policy/,
    );
    invalid(() => parseResiliencySpec(doc({ policies: { timeouts: { t: 'soon' } } }), 'f'), /spec\.policies\.timeouts\.t 'soon' is not a duration/);
    invalid(() => parseResiliencySpec(doc({ policies: { timeouts: { t: '0s' } } }), 'f'), /spec\.policies\.timeouts\.t must be a duration longer than 0/);
    invalid(() => parseResiliencySpec(doc({ policies: { retries: { r: { duration: '5 parsecs' } } } }), 'f'), /spec\.policies\.retries\.r\.duration/);
    invalid(() => parseResiliencySpec(doc({ policies: { retries: { r: { policy: 'linear' } } } }), 'f'), /retries\.r\.policy must be constant or exponential/);
    invalid(() => parseResiliencySpec(doc({ policies: { retries: { r: { maxRetries: -2 } } } }), 'f'), /retries\.r\.maxRetries must be a whole number of at least -1/);
    invalid(() => parseResiliencySpec(doc({ policies: { retries: { r: { matching: { httpStatusCodes: '500-700' } } } } }), 'f'), /httpStatusCodes has '500-700'/);
    invalid(() => parseResiliencySpec(doc({ policies: { retries: { r: { matching: { gRPCStatusCodes: 'UNAVAILABLE' } } } } }), 'f'), /gRPCStatusCodes has 'UNAVAILABLE'/);
    invalid(() => parseResiliencySpec(doc({ policies: { circuitBreakers: { cb: { trip: 'failures > 5' } } } }), 'f'), /circuitBreakers\.cb\.trip 'failures > 5': expected one of consecutiveFailures/);
    invalid(() => parseResiliencySpec(doc({ policies: { circuitBreakers: { cb: { maxRequests: 0 } } } }), 'f'), /cb\.maxRequests must be a whole number of at least 1/);
    invalid(() => parseResiliencySpec(doc({ policies: { circuitBreakers: { cb: { timeout: 'later' } } } }), 'f'), /cb\.timeout/);
    invalid(
      () => parseResiliencySpec(doc({ policies, targets: { actors: { T: { circuitBreakerScope: 'instance' } } } }), 'f'),
      /spec\.targets\.actors\.T\.circuitBreakerScope must be type, id or both/,
    );
    invalid(() => parseResiliencySpec(doc({}, { metadata: {} }), 'f'), /^f: metadata\.name is required/);
    invalid(() => parseResiliencySpec(doc({}, { scopes: 'app1' }), 'f'), /^f: scopes must be a list of app ids/);
    invalid(() => parseResiliencySpec(doc({ policies: [] }), 'f'), /^f: spec\.policies must be a map/);
  });
});

describe('circuit breaker trip conditions', () => {
  const counts = (consecutiveFailures: number, totalFailures = consecutiveFailures, requests = totalFailures) => ({ consecutiveFailures, totalFailures, requests });

  it('compares each count and joins comparisons, && binding tighter than ||', () => {
    expect(compileTrip('consecutiveFailures > 5')(counts(6))).to.equal(true);
    expect(compileTrip('consecutiveFailures > 5')(counts(5))).to.equal(false);
    expect(compileTrip('consecutiveFailures>=5')(counts(5))).to.equal(true);
    expect(compileTrip('totalFailures == 3')(counts(0, 3))).to.equal(true);
    expect(compileTrip('requests < 2')(counts(0, 0, 2))).to.equal(false);
    expect(compileTrip('requests <= 2')(counts(0, 0, 2))).to.equal(true);
    const both = compileTrip('requests >= 10 && totalFailures > 5');
    expect(both(counts(0, 6, 10))).to.equal(true);
    expect(both(counts(0, 6, 9))).to.equal(false);
    // a || b && c is a || (b && c): true through a alone, though c is false
    const mixed = compileTrip('consecutiveFailures > 2 || requests > 100 && totalFailures > 50');
    expect(mixed(counts(3, 3, 3))).to.equal(true);
    expect(mixed(counts(0, 10, 200))).to.equal(false);
    expect(mixed(counts(0, 60, 200))).to.equal(true);
  });

  it('refuses anything outside the grammar, saying what it expected', () => {
    expect(() => compileTrip('')).to.throw(/expected one of consecutiveFailures, requests, totalFailures at the end/);
    expect(() => compileTrip('consecutiveFailures')).to.throw(/expected one of > >= < <= == at the end/);
    expect(() => compileTrip('consecutiveFailures != 5')).to.throw(/cannot read '!= 5'/);
    expect(() => compileTrip('consecutiveFailures > x')).to.throw(/expected a number, found 'x'/);
    expect(() => compileTrip('consecutiveFailures > 5 5')).to.throw(/expected && or \|\|, found '5'/);
    expect(() => compileTrip('(consecutiveFailures > 5)')).to.throw(/cannot read/);
    expect(() => compileTrip('consecutiveFailures > 5 &&')).to.throw(/at the end/);
  });
});

describe('docs/resiliency.md', () => {
  it('has examples that parse as they are written', () => {
    const text = readFileSync(fileURLToPath(new URL('../../../../docs/resiliency.md', import.meta.url)), 'utf8');
    const blocks = [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks).to.have.length.greaterThan(0);
    for (const block of blocks) {
      const spec = parseResiliencySpec(yaml.load(block), 'docs/resiliency.md');
      expect(spec.targets.apps.size + spec.targets.actors.size + spec.targets.outbound.size).to.be.greaterThan(0);
    }
  });
});
