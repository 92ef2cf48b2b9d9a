import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { isRuntimeError } from '../../src/errors/runtime-error.js';
import { loadResiliency } from '../../src/resiliency/load-resiliency.js';
import { Resiliency } from '../../src/resiliency/resiliency.js';
import { removeTempFolder, tempFolder } from '../support/temp-folders.js';
import { DAPR_EXAMPLE } from './dapr-example.js';
import { pause } from './policies.js';

const silent = pino({ level: 'silent' });

/** A Resiliency document with short durations, one breaker that opens on the first failure. */
function resource(name: string, targets: string, scopes = '[]'): string {
  return `apiVersion: svc.io/v1alpha1
kind: Resiliency
metadata: {name: ${name}}
scopes: ${scopes}
spec:
  policies:
    timeouts: {quick: 50ms}
    retries: {twice: {policy: constant, duration: 5ms, maxRetries: 2}}
    circuitBreakers: {once: {timeout: 40ms, trip: consecutiveFailures >= 1}}
  targets:
${targets}`;
}

const fail = async (): Promise<never> => {
  await pause(1);
  throw new Error('target down');
};

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  return expect.fail('expected a failure');
}

describe('resiliency: loading from the resources paths', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempFolder('res-');
  });
  afterEach(() => removeTempFolder(dir));

  it("keeps this app's Resiliency documents of every YAML file, ignoring other kinds, and merges them", async () => {
    const component = 'apiVersion: svc.io/v1alpha1\nkind: Component\nmetadata: {name: statestore}\nspec: {type: state.in-memory, version: v1}';
    writeFileSync(path.join(dir, 'a.yaml'), `${component}\n---\n${resource('mine', '    apps: {appB: {retry: twice}}', '[app1]')}`);
    writeFileSync(path.join(dir, 'b.yml'), resource('everyone', '    components: {statestore: {outbound: {timeout: quick}}}'));
    writeFileSync(path.join(dir, 'c.yaml'), resource('theirs', '    apps: {appB: {timeout: quick}}', '[app2]'));
    writeFileSync(path.join(dir, 'd.yaml'), DAPR_EXAMPLE); // scoped to app1 and app2
    writeFileSync(path.join(dir, 'notes.txt'), 'not YAML');
    // d.yaml (Dapr's example) declares appB too: the same target twice, named with both files
    const err = await failure(loadResiliency([dir], 'app1', silent));
    expect(isRuntimeError(err, 'ERR_RESILIENCY_INVALID'), String(err)).to.equal(true);
    expect((err as Error).message).to.equal(`file ${dir}/d.yaml: spec.targets.apps.appB is already declared by file ${dir}/a.yaml (document 2) (one Resiliency target, one declaration)`);
    rmSync(path.join(dir, 'd.yaml'));

    const loaded = await loadResiliency([dir], 'app1', silent);
    expect(loaded.resources).to.deep.equal(['mine', 'everyone']);
    expect(loaded.targets.apps.get('appB')!.retry!.name).to.equal('twice');
    expect(loaded.targets.outbound.get('statestore')!.timeout).to.deep.equal({ name: 'quick', ms: 50 });
    expect((await loadResiliency([dir], 'app2', silent)).resources).to.deep.equal(['everyone', 'theirs']);
  });

  it('fails on an invalid Resiliency document, naming its file', async () => {
    writeFileSync(path.join(dir, 'bad.yaml'), resource('bad', '    apps: {appB: {retry: thrice}}'));
    const err = await failure(loadResiliency([dir], 'app1', silent));
    expect(isRuntimeError(err, 'ERR_RESILIENCY_INVALID')).to.equal(true);
    expect((err as Error).message).to.match(new RegExp(`^file ${dir}/bad\\.yaml: spec\\.targets\\.apps\\.appB\\.retry names no policy`));
  });
});

describe('resiliency: policies by target', () => {
  async function resiliency(targets: string, changes: string[] = []): Promise<Resiliency> {
    const dir = tempFolder('res-');
    writeFileSync(path.join(dir, 'r.yaml'), resource('r', targets));
    try {
      return new Resiliency(await loadResiliency([dir], 'app1', silent), { onStateChange: (c) => changes.push(`${c.target}: ${c.to}`) });
    } finally {
      removeTempFolder(dir);
    }
  }

  it("gives every call to a target the same policy, so its breaker's state lasts across calls", async () => {
    const changes: string[] = [];
    const r = await resiliency('    apps: {appB: {retry: twice, circuitBreaker: once}}', changes);
    expect(r.forApp('appB')).to.equal(r.forApp('appB'));
    let calls = 0;
    const attempt = (): Promise<never> => (calls++, fail());
    await failure(r.forApp('appB').run(attempt, { retryable: () => false }));
    const err = await failure(r.forApp('appB').run(attempt, { retryable: () => false }));
    expect(isRuntimeError(err, 'ERR_CIRCUIT_BREAKER_OPEN')).to.equal(true);
    expect(calls).to.equal(1);
    expect(changes).to.deep.equal(["app 'appB': open"]);
  });

  it('runs the attempt once, as it is, for a target no resource names', async () => {
    const r = new Resiliency();
    for (const policy of [r.forApp('x'), r.forActor('T', '1'), r.forComponent('s', 'outbound')]) {
      let calls = 0;
      const err = await failure(policy.run(() => (calls++, fail()), { retryable: () => true }));
      expect((err as Error).message).to.equal('target down');
      expect(calls).to.equal(1);
    }
  });

  it("keeps a component's two directions apart", async () => {
    const r = await resiliency('    components: {pubsub: {outbound: {retry: twice}, inbound: {circuitBreaker: once}}}');
    expect(r.forComponent('pubsub', 'outbound').retry?.name).to.equal('twice');
    expect(r.forComponent('pubsub', 'outbound').breakers).to.have.length(0);
    expect(r.forComponent('pubsub', 'inbound').breakers.map((b) => b.target)).to.deep.equal(["component 'pubsub' (inbound)"]);
  });

  it("scopes an actor type's breaker to the type, each id, or both, keeping circuitBreakerCacheSize ids", async () => {
    const r = await resiliency(`    actors:
      ByType: {circuitBreaker: once}
      ById: {circuitBreaker: once, circuitBreakerScope: id, circuitBreakerCacheSize: 2}
      Both: {circuitBreaker: once, circuitBreakerScope: both}`);
    expect(r.forActor('ByType', '1')).to.equal(r.forActor('ByType'));
    expect(r.forActor('Both', '1').breakers.map((b) => b.target)).to.deep.equal(["actor type 'Both'", "actor 'Both/1'"]);
    expect(r.forActor('ById').breakers).to.have.length(0);

    await failure(r.forActor('ById', 'a').run(fail, { retryable: () => false }));
    expect(r.forActor('ById', 'a').breakers[0]!.state).to.equal('open');
    expect(r.forActor('ById', 'b').breakers[0]!.state).to.equal('closed');
    const b = r.forActor('ById', 'b');
    r.forActor('ById', 'c'); // a is now the least recently used of three: dropped
    expect(r.forActor('ById', 'b')).to.equal(b);
    expect(r.forActor('ById', 'a').breakers[0]!.state).to.equal('closed');
    expect(r.breakers().map((x) => x.target)).to.include.members(["actor type 'ByType'", "actor 'ById/b'", "actor 'ById/a'"]);
  });

  it('describes each target with its policies and its breaker state', async () => {
    const r = await resiliency(`    apps: {appB: {timeout: quick, retry: twice, circuitBreaker: once}}
    actors: {Both: {circuitBreaker: once, circuitBreakerScope: both}}
    components: {store: {outbound: {retry: twice}}}`);
    await failure(r.forApp('appB').run(fail, { retryable: () => false }));
    expect(JSON.parse(JSON.stringify(r.describe()))).to.deep.equal({
      resources: ['r'],
      targets: [
        { kind: 'app', name: 'appB', timeout: 'quick', retry: 'twice', circuitBreaker: 'once', circuitBreakerState: 'open' },
        { kind: 'actor', name: 'Both', circuitBreaker: 'once', circuitBreakerScope: 'both', circuitBreakerState: 'closed' },
        { kind: 'component', name: 'store', direction: 'outbound', retry: 'twice' },
      ],
    });
  });
});
