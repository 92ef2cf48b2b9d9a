/** The sidecar actor HTTP API against a real svcd (SQLite) and an app-hosted actor app. */
import { expect } from 'chai';
import { SvcdProcess, componentYaml, freePort } from '../support/index.js';
import { ActorApp } from './actor-app.js';

const actorStore = (name = 'actorstore', file = 'actors.db') => componentYaml(name, 'state.sqlite', { databasePath: file, actorStateStore: 'true' });

async function errorOf(res: Response): Promise<{ status: number; errorCode: string; message: string }> {
  const body = (await res.json()) as { errorCode: string; message: string };
  return { status: res.status, ...body };
}

describe('actor HTTP API (real svcd, SQLite)', function () {
  this.timeout(60_000);
  let app: ActorApp;
  let svcd: SvcdProcess;

  before(async () => {
    app = await ActorApp.start({ types: ['Counter', 'Pinger', 'Sleepy'], idleTimeout: '1s' });
    svcd = await SvcdProcess.start({ resources: { 'actorstore.yaml': actorStore() }, args: ['--app-port', String(app.port)] });
    app.svcdUrl = svcd.httpUrl;
  });

  after(async () => {
    await svcd.stop();
    await app.close();
  });

  it('invokes an app-hosted actor method and returns its answer', async () => {
    const res = await svcd.request('POST', '/v1.0/actors/Counter/a/method/echo', 'hello');
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ echoed: 'hello' });
    const failed = await errorOf(await svcd.request('PUT', '/v1.0/actors/Counter/a/method/fail', {}));
    expect(failed.status).to.equal(500);
    expect(failed.errorCode).to.equal('ERR_ACTOR_INVOKE_METHOD');
  });

  it('reads and writes actor state through transactions; a bad transaction changes nothing', async () => {
    const base = '/v1.0/actors/Counter/s1/state';
    expect((await svcd.request('GET', `${base}/missing`)).status).to.equal(204);
    const ok = await svcd.request('POST', base, [
      { operation: 'upsert', request: { key: 'a', value: { n: 1 } } },
      { operation: 'upsert', request: { key: 'b', value: 'text' } },
    ]);
    expect(ok.status).to.equal(204);
    expect(await (await svcd.request('GET', `${base}/a`)).json()).to.deep.equal({ n: 1 });
    const bad = await errorOf(
      await svcd.request('PUT', base, [
        { operation: 'delete', request: { key: 'a' } },
        { operation: 'merge', request: { key: 'b' } },
      ]),
    );
    expect(bad.status).to.equal(400);
    expect(bad.errorCode).to.equal('ERR_MALFORMED_REQUEST');
    expect(await (await svcd.request('GET', `${base}/a`)).json()).to.deep.equal({ n: 1 });
    expect((await errorOf(await svcd.request('POST', base, '{not json'))).errorCode).to.equal('ERR_MALFORMED_REQUEST');
    await svcd.request('POST', base, [{ operation: 'delete', request: { key: 'a' } }]);
    expect((await svcd.request('GET', `${base}/a`)).status).to.equal(204);
  });

  it('creates, reads and deletes reminders in every accepted time format; rejects bad ones', async () => {
    const base = '/v1.0/actors/Pinger/r1/reminders';
    const future = new Date(Date.now() + 3_600_000).toISOString();
    for (const [name, body] of [
      ['go', { dueTime: '1h2m3s', period: '10s' }],
      ['iso', { dueTime: 'PT1H', period: 'R5/PT10S', ttl: 'PT2H' }],
      ['rfc', { dueTime: future, data: [1, 2] }],
    ] as const) {
      expect((await svcd.request('POST', `${base}/${name}`, body)).status, name).to.equal(204);
    }
    const iso = (await (await svcd.request('GET', `${base}/iso`)).json()) as Record<string, unknown>;
    expect(iso).to.include({ actorType: 'Pinger', actorId: 'r1', name: 'iso', dueTime: 'PT1H', period: 'R5/PT10S' });
    expect(iso.expirationTime).to.be.a('string');
    const rfc = (await (await svcd.request('GET', `${base}/rfc`)).json()) as Record<string, unknown>;
    expect(rfc.data).to.deep.equal([1, 2]);
    expect(rfc.nextFireTime).to.equal(future);

    const beforeDue = new Date(Date.now() + 1_000).toISOString();
    for (const body of [{ dueTime: 'soon' }, { period: '-5s' }, { dueTime: '1s', ttl: 'never' }, { dueTime: '10s', ttl: beforeDue }, { dueTime: 5 }]) {
      const err = await errorOf(await svcd.request('POST', `${base}/bad`, body));
      expect(err.status, JSON.stringify(body)).to.equal(400);
      expect(err.errorCode).to.equal('ERR_MALFORMED_REQUEST');
    }
    expect((await svcd.request('GET', `${base}/bad`)).status).to.equal(404);

    expect((await svcd.request('DELETE', `${base}/go`)).status).to.equal(204);
    const gone = await errorOf(await svcd.request('GET', `${base}/go`));
    expect([gone.status, gone.errorCode]).to.deep.equal([404, 'ERR_ACTOR_REMINDER_NON_EXISTENT']);
    expect((await svcd.request('DELETE', `${base}/go`)).status).to.equal(204);
    await svcd.request('DELETE', `${base}/iso`);
    await svcd.request('DELETE', `${base}/rfc`);
  });

  it('fires timers to the app and deletes them', async () => {
    const base = '/v1.0/actors/Pinger/t1/timers/tick';
    expect((await svcd.request('POST', base, { dueTime: '0s', period: '100ms', data: 'x', callback: 'onTick' })).status).to.equal(204);
    await app.waitFor((calls) => calls.filter((c) => c.kind === 'timer' && c.id === 't1').length >= 3, 'three timer fires');
    const body = JSON.parse(app.calls.find((c) => c.kind === 'timer' && c.id === 't1')!.body) as Record<string, unknown>;
    expect(body).to.include({ data: 'x', dueTime: '0s', period: '100ms', callback: 'onTick' });
    expect((await svcd.request('DELETE', base)).status).to.equal(204);
    // After the delete, a method call is answered and no further tick is queued behind it.
    await svcd.request('PUT', '/v1.0/actors/Pinger/t1/method/echo', 'x');
    const ticks = app.count((c) => c.kind === 'timer' && c.id === 't1');
    await svcd.request('PUT', '/v1.0/actors/Pinger/t1/method/echo', 'x');
    expect(app.count((c) => c.kind === 'timer' && c.id === 't1')).to.equal(ticks);
  });

  it('counts a TTL given as a duration from the first due time, for reminders and timers (the anchor\'s rule)', async () => {
    // Due in 500 ms, every 150 ms, TTL 400 ms: fires at 0.5, 0.65 and 0.8 s, then expires at 0.9 s. Counted from the
    // registration, the TTL would end before the first fire (that was refused with 400). Short enough to fire
    // before the test app's 1 s idle timeout deactivates the actor (which ends its timers).
    for (const kind of ['reminders', 'timers'] as const) {
      const res = await svcd.request('POST', `/v1.0/actors/Pinger/ttl-${kind}/${kind}/short`, { dueTime: '500ms', period: '150ms', ttl: '400ms' });
      expect(res.status, kind).to.equal(204);
    }
    const fires = (kind: 'remind' | 'timer', id: string) => app.count((c) => c.kind === kind && c.id === id);
    await app.waitFor((calls) => calls.filter((c) => c.id === 'ttl-timers' && c.kind === 'timer').length >= 1 && calls.some((c) => c.id === 'ttl-reminders' && c.kind === 'remind'), 'first fires');
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    for (const [kind, id] of [['remind', 'ttl-reminders'], ['timer', 'ttl-timers']] as const) {
      expect(fires(kind, id), id).to.be.within(2, 4);
    }
    const settled = [fires('remind', 'ttl-reminders'), fires('timer', 'ttl-timers')];
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect([fires('remind', 'ttl-reminders'), fires('timer', 'ttl-timers')], 'fires after the expiry').to.deep.equal(settled);
    expect((await svcd.request('GET', '/v1.0/actors/Pinger/ttl-reminders/reminders/short')).status, 'expired reminder deleted').to.equal(404);
  });

  it('lets an actor register timers and reminders on itself from inside its own turn', async () => {
    const res = await svcd.request('PUT', '/v1.0/actors/Pinger/self/method/arm', {});
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal([204, 204]);
    await app.waitFor((calls) => calls.filter((c) => c.id === 'self' && c.kind === 'timer').length >= 2 && calls.some((c) => c.id === 'self' && c.kind === 'remind'), 'the timer and the reminder fired');
    expect((await svcd.request('DELETE', '/v1.0/actors/Pinger/self/timers/armed')).status).to.equal(204);
  });

  it('deactivates idle actors (the app idle timeout from /dapr/config) and lists active counts in metadata', async () => {
    await svcd.request('PUT', '/v1.0/actors/Sleepy/z/method/echo', 'x');
    const meta = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { actors: { type: string; count: number }[]; actorRuntime: { runtimeStatus: string } };
    expect(meta.actors.find((a) => a.type === 'Sleepy')?.count).to.equal(1);
    expect(meta.actorRuntime.runtimeStatus).to.equal('RUNNING');
    await app.waitFor((calls) => calls.some((c) => c.kind === 'deactivate' && c.type === 'Sleepy' && c.id === 'z'), 'Sleepy/z deactivated');
    const after = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { actors: { type: string; count: number }[] };
    expect(after.actors.find((a) => a.type === 'Sleepy')?.count).to.equal(0);
  });

  it('answers ERR_ACTOR_INSTANCE_MISSING for types the app does not host', async () => {
    for (const [method, path] of [
      ['GET', '/v1.0/actors/Nope/a/state/k'],
      ['POST', '/v1.0/actors/Nope/a/reminders/r'],
      ['PUT', '/v1.0/actors/Nope/a/method/m'],
    ] as const) {
      const err = await errorOf(await svcd.request(method, path, method === 'GET' ? undefined : {}));
      expect([err.status, err.errorCode], path).to.deep.equal([400, 'ERR_ACTOR_INSTANCE_MISSING']);
    }
  });

  it('exposes actor metrics', async () => {
    expect((await svcd.request('POST', '/v1.0/actors/Pinger/m/reminders/now', { dueTime: '0s' })).status).to.equal(204);
    await app.waitFor((calls) => calls.some((c) => c.kind === 'remind' && c.id === 'm'), 'the reminder fired');
    const text = await (await fetch(`http://127.0.0.1:${svcd.ports.metrics}/metrics`)).text();
    expect(text).to.match(/svc_actor_active_actors\{[^}]*actor_type="Counter"/);
    expect(text).to.match(/svc_actor_turn_duration_seconds_count\{[^}]*actor_type="Counter",kind="method",outcome="ok"/);
    expect(text).to.match(/svc_actor_reminder_lag_seconds_bucket/);
  });
});

describe('actor runtime configuration (real svcd)', function () {
  this.timeout(30_000);

  it('answers ERR_ACTOR_RUNTIME_NOT_FOUND without an actor state store', async () => {
    const svcd = await SvcdProcess.start({ resources: { 's.yaml': componentYaml('plain', 'state.sqlite', { databasePath: 'p.db' }) } });
    try {
      const err = await errorOf(await svcd.request('PUT', '/v1.0/actors/A/a/method/m', {}));
      expect([err.status, err.errorCode]).to.deep.equal([500, 'ERR_ACTOR_RUNTIME_NOT_FOUND']);
      const meta = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { actors: unknown[] };
      expect(meta.actors).to.deep.equal([]);
    } finally {
      await svcd.stop();
    }
  });

  it('waits for an app that starts after svcd before serving', async () => {
    const port = await freePort();
    const svcd = await SvcdProcess.start({ resources: { 'a.yaml': actorStore() }, args: ['--app-port', String(port)], waitReady: false });
    let app: ActorApp | undefined;
    try {
      await new Promise((r) => setTimeout(r, 700)); // svcd is retrying /dapr/config meanwhile
      app = await ActorApp.start({ port, types: ['Late'] });
      await svcd.waitReady(20_000);
      const meta = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { actors: { type: string }[] };
      expect(meta.actors.map((a) => a.type)).to.include('Late');
      expect((await svcd.request('PUT', '/v1.0/actors/Late/x/method/echo', 'hi')).status).to.equal(200);
    } finally {
      await svcd.stop();
      await app?.close();
    }
  });

  it('refuses to start with two actor state stores', async () => {
    const svcd = await SvcdProcess.start({ resources: { 'a.yaml': actorStore('one', 'one.db'), 'b.yaml': actorStore('two', 'two.db') }, waitReady: false });
    const exit = await svcd.exited;
    expect(exit.code).to.equal(1);
    expect(svcd.output).to.contain('only one state store may be marked actorStateStore');
  });
});
