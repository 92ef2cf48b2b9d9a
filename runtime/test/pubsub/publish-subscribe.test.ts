/**
 * The pub/sub API against a real svcd and a real subscribing app (HTTP): publishing (CloudEvent envelope, own
 * CloudEvents, raw payloads, bulk), programmatic and declarative subscriptions with routing rules, the app's
 * answers (SUCCESS, RETRY, DROP, 404, 5xx) with dead-letter topics, expiry, scopes, metadata and error codes.
 */
import { expect } from 'chai';
import { SubscriberApp, SvcdProcess, componentYaml } from '../support/index.js';

const SUBSCRIPTIONS = [
  { pubsubname: 'pubsub', topic: 'orders', route: '/orders' },
  { pubsubname: 'pubsub', topic: 'routed', routes: { rules: [{ match: 'event.data.size == "big" && event.type.startsWith("com.")', path: '/big' }], default: '/small' } },
  { pubsubname: 'pubsub', topic: 'raw', route: '/raw', metadata: { rawPayload: 'true' } },
  { pubsubname: 'pubsub', topic: 'flaky', route: '/flaky', metadata: { retryInitialInterval: '20ms' } },
  { pubsubname: 'pubsub', topic: 'refused', route: '/refused', deadLetterTopic: 'poison' },
  { pubsubname: 'pubsub', topic: 'failing', route: '/failing', deadLetterTopic: 'poison', metadata: { maxDeliveryAttempts: '3', retryInitialInterval: '10ms' } },
  { pubsubname: 'pubsub', topic: 'gone', route: '/gone' },
  { pubsubname: 'pubsub', topic: 'poison', route: '/poison' },
  { pubsubname: 'pubsub', topic: 'bad-rule', routes: { rules: [{ match: 'event.type ==', path: '/never' }] } },
];

const DECLARATIVE = `apiVersion: svc.io/v2alpha1
kind: Subscription
metadata:
  name: audit
spec:
  pubsubname: pubsub
  topic: audit
  routes:
    default: /audit
scopes:
  - testapp
---
apiVersion: svc.io/v2alpha1
kind: Subscription
metadata:
  name: not-mine
spec:
  pubsubname: pubsub
  topic: other-app
  routes:
    default: /other
scopes:
  - someone-else
`;

async function metric(svcd: SvcdProcess, line: RegExp): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${svcd.ports.metrics}/metrics`)).text();
  const found = text.split('\n').find((l) => line.test(l));
  return found ? Number(found.split(' ').at(-1)) : 0;
}

describe('pub/sub over HTTP (in-memory broker, real subscribing app)', function () {
  this.timeout(60_000);
  let app: SubscriberApp;
  let svcd: SvcdProcess;

  const publish = (topic: string, body: unknown, headers: Record<string, string> = {}, query = '', pubsub = 'pubsub') =>
    svcd.request('POST', `/v1.0/publish/${pubsub}/${topic}${query}`, body, headers);

  before(async () => {
    app = await SubscriberApp.start(SUBSCRIPTIONS);
    app.answers.set('/flaky', [{ status: 200, body: { status: 'RETRY' } }, { status: 503 }, { status: 200, body: { status: 'SUCCESS' } }]);
    app.answers.set('/refused', [{ status: 200, body: { status: 'DROP' } }]);
    app.answers.set('/failing', [{ status: 500 }]);
    app.answers.set('/gone', [{ status: 404 }]);
    svcd = await SvcdProcess.start({
      resources: {
        'pubsub.yaml': componentYaml('pubsub', 'pubsub.in-memory'),
        'scoped.yaml': componentYaml('scoped', 'pubsub.in-memory', { publishingScopes: 'testapp=granted', protectedTopics: 'secret' }),
        'limited.yaml': componentYaml('limited', 'pubsub.in-memory', { allowedTopics: 'only-this' }),
        'subscriptions.yaml': DECLARATIVE,
      },
      args: ['--app-port', String(app.port)],
    });
  });
  after(async () => {
    await svcd?.dispose();
    await app?.stop();
  });

  it('wraps a JSON body in a CloudEvent and delivers it as application/cloudevents+json', async () => {
    const res = await publish('orders', { id: 7 }, { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    expect(res.status).to.equal(204);
    const [d] = await app.waitFor('/orders');
    expect(d!.contentType).to.match(/^application\/cloudevents\+json/);
    expect(d!.body).to.include({ specversion: '1.0', type: 'com.dapr.event.sent', source: 'testapp', topic: 'orders', pubsubname: 'pubsub', datacontenttype: 'application/json' });
    expect(d!.body.data).to.deep.equal({ id: 7 });
    expect(d!.body.id).to.match(/^[0-9a-f-]{36}$/);
    expect(d!.headers.traceparent).to.equal('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
  });

  it('keeps a CloudEvent the publisher made (its id and type), text as a string, and routes by rules', async () => {
    const own = { specversion: '1.0', id: 'evt-1', source: 'shop', type: 'com.shop.order', datacontenttype: 'application/json', data: { size: 'big' } };
    expect((await publish('routed', own, { 'content-type': 'application/cloudevents+json' })).status).to.equal(204);
    expect((await publish('routed', 'just text', { 'content-type': 'text/plain' })).status).to.equal(204);
    const [big] = await app.waitFor('/big');
    expect(big!.body).to.include({ id: 'evt-1', type: 'com.shop.order', source: 'shop', topic: 'routed', pubsubname: 'pubsub' });
    const [small] = await app.waitFor('/small');
    expect(small!.body).to.include({ data: 'just text', datacontenttype: 'text/plain' });
  });

  it('publishes raw payloads (rawPayload=true) and a raw subscription gets the bytes as data_base64', async () => {
    const bytes = Buffer.from([0, 1, 2, 250]);
    expect((await publish('raw', bytes, { 'content-type': 'application/octet-stream' }, '?metadata.rawPayload=true')).status).to.equal(204);
    const [d] = await app.waitFor('/raw');
    expect(Buffer.from(d!.body.data_base64 as string, 'base64')).to.deep.equal(bytes);
  });

  it('redelivers on RETRY and 5xx with backoff until SUCCESS', async () => {
    expect((await publish('flaky', { n: 1 })).status).to.equal(204);
    const got = await app.waitFor('/flaky', 3);
    expect(new Set(got.map((d) => d.body.id)).size, 'the same event each time').to.equal(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(app.to('/flaky')).to.have.length(3);
    expect(await metric(svcd, /^svc_pubsub_deliveries_total\{.*topic="flaky".*outcome="retry"/)).to.equal(2);
  });

  it('moves a DROPped message and one that exhausted its attempts to the dead-letter topic; 404 drops', async () => {
    await publish('refused', { n: 'drop-me' });
    await publish('failing', { n: 'fail-me' });
    await publish('gone', { n: 'nobody-home' });
    const poisoned = await app.waitFor('/poison', 2);
    expect(poisoned.map((d) => (d.body.data as { n: string }).n).sort()).to.deep.equal(['drop-me', 'fail-me']);
    expect(app.to('/failing'), 'maxDeliveryAttempts: 3').to.have.length(3);
    await app.waitFor('/gone');
    await new Promise((r) => setTimeout(r, 300));
    expect(app.to('/gone'), '404 is not retried').to.have.length(1);
    expect(await metric(svcd, /^svc_pubsub_dead_lettered_total\{.*topic="refused"/)).to.equal(1);
  });

  it('does not deliver an expired event (ttlInSeconds on publish, or an expiration already past)', async () => {
    const past = { specversion: '1.0', id: 'old', source: 'x', type: 't', expiration: new Date(Date.now() - 1000).toISOString(), data: {} };
    expect((await publish('orders', past, { 'content-type': 'application/cloudevents+json' })).status).to.equal(204);
    expect((await publish('orders', { fresh: true }, {}, '?metadata.ttlInSeconds=60')).status).to.equal(204);
    const got = await app.waitFor('/orders', 2);
    const fresh = got.find((d) => (d.body.data as { fresh?: boolean }).fresh);
    expect(fresh!.body.expiration).to.be.a('string');
    expect(got.some((d) => d.body.id === 'old')).to.equal(false);
    expect(await metric(svcd, /^svc_pubsub_deliveries_total\{.*outcome="expired"/)).to.equal(1);
  });

  it('delivers declarative subscriptions scoped to the app and lists every subscription in /v1.0/metadata', async () => {
    await publish('audit', { who: 'me' });
    await app.waitFor('/audit');
    const meta = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { subscriptions: { topic: string; type: string; deadLetterTopic?: string; rules: { match: string; path: string }[] }[] };
    const topics = meta.subscriptions.map((s) => `${s.topic}:${s.type}`).sort();
    expect(topics).to.include.members(['audit:DECLARATIVE', 'orders:PROGRAMMATIC', 'routed:PROGRAMMATIC']);
    expect(topics.some((t) => t.startsWith('other-app')), 'scoped to another app').to.equal(false);
    expect(topics.some((t) => t.startsWith('bad-rule')), 'a rule that does not parse leaves its subscription out').to.equal(false);
    expect(meta.subscriptions.find((s) => s.topic === 'routed')!.rules[0]).to.deep.equal({ match: 'event.data.size == "big" && event.type.startsWith("com.")', path: '/big' });
    expect(meta.subscriptions.find((s) => s.topic === 'refused')!.deadLetterTopic).to.equal('poison');
    expect(svcd.output).to.match(/routing rule 'event.type ==' cannot be parsed/);
  });

  it('bulk publishes with one result per request, entries delivered as single events', async () => {
    const res = await svcd.request('POST', '/v1.0-alpha1/publish/bulk/pubsub/orders', [
      { entryId: '1', event: { bulk: 1 }, contentType: 'application/json' },
      { entryId: '2', event: 'text entry', contentType: 'text/plain' },
    ]);
    expect(res.status).to.equal(204);
    await app.waitFor('/orders', 4);
    const bodies = app.to('/orders').map((d) => d.body.data);
    expect(bodies).to.deep.include({ bulk: 1 });
    expect(bodies).to.include('text entry');
  });

  it('answers errors with codes and statuses, and publishes nothing on a bad request', async () => {
    const cases: [Promise<Response>, number, string][] = [
      [publish('t', {}, {}, '', 'nope'), 404, 'ERR_PUBSUB_NOT_FOUND'],
      [svcd.request('POST', '/v1.0/publish/pubsub', {}), 404, 'ERR_TOPIC_EMPTY'],
      [publish('orders', {}, {}, '?metadata.ttlInSeconds=soon'), 400, 'ERR_PUBSUB_REQUEST_METADATA'],
      [publish('orders', '[1,2]', { 'content-type': 'application/cloudevents+json' }), 400, 'ERR_PUBSUB_CLOUD_EVENTS_SER'],
      [publish('orders', '{not json', { 'content-type': 'application/cloudevents+json' }), 400, 'ERR_PUBSUB_CLOUD_EVENTS_SER'],
      [publish('other', {}, {}, '', 'scoped'), 403, 'ERR_PUBSUB_FORBIDDEN'],
      [publish('secret', {}, {}, '', 'scoped'), 403, 'ERR_PUBSUB_FORBIDDEN'],
      [publish('elsewhere', {}, {}, '', 'limited'), 403, 'ERR_PUBSUB_FORBIDDEN'],
      [svcd.request('POST', '/v1.0-alpha1/publish/bulk/pubsub/orders', { not: 'a list' }), 400, 'ERR_PUBSUB_EVENTS_SER'],
      [svcd.request('POST', '/v1.0-alpha1/publish/bulk/pubsub/orders', [{ entryId: '1', event: 5, contentType: 'text/plain' }]), 400, 'ERR_PUBSUB_EVENTS_SER'],
      [svcd.request('POST', '/v1.0-alpha1/publish/bulk/pubsub/orders', [{ entryId: '1', event: {} }, { entryId: '1', event: {} }]), 400, 'ERR_PUBSUB_EVENTS_SER'],
      // A bad last entry fails the whole request: the good entries before it are not published either.
      [svcd.request('POST', '/v1.0-alpha1/publish/bulk/pubsub/orders', [{ entryId: '1', event: { ok: 1 } }, { entryId: '2', event: [1, 2], contentType: 'application/cloudevents+json' }]), 400, 'ERR_PUBSUB_CLOUD_EVENTS_SER'],
      [svcd.request('POST', '/v1.0-alpha1/publish/bulk/pubsub/orders', [{ entryId: '1', event: { ok: 1 } }, { entryId: '2', event: {}, metadata: { ttlInSeconds: 'soon' } }]), 400, 'ERR_PUBSUB_REQUEST_METADATA'],
    ];
    const before = app.to('/orders').length;
    for (const [call, status, code] of cases) {
      const res = await call;
      const body = (await res.json()) as { errorCode: string; message: string };
      expect([res.status, body.errorCode], body.message).to.deep.equal([status, code]);
      expect(body.message).to.be.a('string').and.not.equal('');
    }
    expect((await publish('granted', {}, {}, '', 'scoped')).status, 'the granted topic').to.equal(204);
    expect((await publish('only-this', {}, {}, '', 'limited')).status).to.equal(204);
    await new Promise((r) => setTimeout(r, 300));
    expect(app.to('/orders')).to.have.length(before);
  });

  it('says no pub/sub is configured when there is none', async () => {
    const bare = await SvcdProcess.start({});
    try {
      const res = await bare.request('POST', '/v1.0/publish/pubsub/t', {});
      expect(res.status).to.equal(400);
      expect(((await res.json()) as { errorCode: string }).errorCode).to.equal('ERR_PUBSUB_NOT_CONFIGURED');
    } finally {
      await bare.dispose();
    }
  });
});
