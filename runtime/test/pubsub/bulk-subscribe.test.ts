/**
 * Bulk subscribe against a real svcd and a real subscribing app: batches of at most `maxMessagesCount` in the
 * envelope Dapr SDK subscribers read, one status per entry honoured (SUCCESS, RETRY, DROP to the dead-letter topic,
 * an entry the app did not answer for retried), raw payloads as base64 entries.
 */
import { expect } from 'chai';
import { SubscriberApp, SvcdProcess, componentYaml, type Delivery } from '../support/index.js';

interface Entry {
  entryId: string;
  event: { id: string; data: { kind: string; n: number } } | string;
  contentType: string;
  metadata: Record<string, string>;
}

const entriesOf = (d: Delivery) => d.body.entries as Entry[];
const dataOf = (e: Entry) => (e.event as { data: { kind: string; n: number } }).data;

const BULK = { enabled: true, maxMessagesCount: 5, maxAwaitDurationMs: 200 };

describe('pub/sub bulk subscribe (in-memory broker, real subscribing app)', function () {
  this.timeout(60_000);
  let app: SubscriberApp;
  let svcd: SvcdProcess;

  const bulkPublish = (topic: string, events: unknown[]) =>
    svcd.request('POST', `/v1.0-alpha1/publish/bulk/pubsub/${topic}`, events.map((event, i) => ({ entryId: String(i), event, contentType: 'application/json' })));

  before(async () => {
    app = await SubscriberApp.start([
      { pubsubname: 'pubsub', topic: 'batched', route: '/batched', bulkSubscribe: BULK },
      { pubsubname: 'pubsub', topic: 'mixed', route: '/mixed', bulkSubscribe: BULK, deadLetterTopic: 'dead', metadata: { retryInitialInterval: '20ms', maxDeliveryAttempts: '3' } },
      { pubsubname: 'pubsub', topic: 'dead', route: '/dead' },
      { pubsubname: 'pubsub', topic: 'raw', route: '/raw', bulkSubscribe: BULK, metadata: { rawPayload: 'true' } },
    ]);
    svcd = await SvcdProcess.start({ resources: { 'pubsub.yaml': componentYaml('pubsub', 'pubsub.in-memory') }, args: ['--app-port', String(app.port)] });
  });
  after(async () => {
    await svcd?.dispose();
    await app?.stop();
  });

  it('delivers batches of at most maxMessagesCount in the bulk envelope, each event once', async () => {
    app.answers.set('/batched', [{ status: 200, bodyFor: (d) => ({ statuses: entriesOf(d).map((e) => ({ entryId: e.entryId, status: 'SUCCESS' })) }) }]);
    expect((await bulkPublish('batched', Array.from({ length: 12 }, (_, n) => ({ kind: 'ok', n })))).status).to.equal(204);
    const seen = async () => (await app.waitFor('/batched')) && app.to('/batched').flatMap(entriesOf);
    for (let i = 0; i < 50 && (await seen()).length < 12; i++) await new Promise((r) => setTimeout(r, 100));
    const batches = app.to('/batched');
    expect(batches.length).to.be.at.least(3);
    for (const b of batches) {
      expect(b.body).to.include({ pubsubname: 'pubsub', topic: 'batched', type: 'com.dapr.event.sent.bulk' });
      expect(entriesOf(b).length).to.be.within(1, 5);
      for (const e of entriesOf(b)) expect(e.contentType).to.equal('application/cloudevents+json');
    }
    expect(batches.flatMap(entriesOf).map((e) => dataOf(e).n).sort((a, b) => a - b)).to.deep.equal([...Array(12).keys()]);
    await new Promise((r) => setTimeout(r, 400));
    expect(app.to('/batched').flatMap(entriesOf), 'all answered SUCCESS: nothing delivered twice').to.have.length(12);
  });

  it('honours each entry: SUCCESS taken, RETRY and unanswered entries again, DROP to the dead-letter topic', async () => {
    const answered = new Set<string>();
    app.answers.set('/mixed', [
      {
        status: 200,
        bodyFor: (d) => ({
          statuses: entriesOf(d).flatMap((e) => {
            const { kind, n } = dataOf(e);
            const first = !answered.has(`${kind}${n}`);
            answered.add(`${kind}${n}`);
            if (kind === 'drop') return [{ entryId: e.entryId, status: 'DROP' }];
            if (kind === 'retry' && first) return [{ entryId: e.entryId, status: 'RETRY' }];
            if (kind === 'silent' && first) return [];
            return [{ entryId: e.entryId, status: 'SUCCESS' }];
          }),
        }),
      },
    ]);
    const events = [{ kind: 'ok', n: 1 }, { kind: 'retry', n: 2 }, { kind: 'drop', n: 3 }, { kind: 'silent', n: 4 }, { kind: 'ok', n: 5 }];
    expect((await bulkPublish('mixed', events)).status).to.equal(204);
    const dead = await app.waitFor('/dead');
    expect((dead[0]!.body.data as { kind: string }).kind).to.equal('drop');
    const deliveredKinds = () => app.to('/mixed').flatMap(entriesOf).map((e) => dataOf(e).kind);
    for (let i = 0; i < 50 && deliveredKinds().length < 7; i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 300));
    const counts = deliveredKinds().reduce<Record<string, number>>((acc, k) => ({ ...acc, [k]: (acc[k] ?? 0) + 1 }), {});
    expect(counts).to.deep.equal({ ok: 2, retry: 2, drop: 1, silent: 2 });
    expect(app.to('/dead')).to.have.length(1);
  });

  it('with rawPayload, entries carry the published bytes in base64 as application/octet-stream', async () => {
    const bytes = Buffer.from([0xff, 0x00, 0x10]);
    expect((await svcd.request('POST', '/v1.0/publish/pubsub/raw?metadata.rawPayload=true', bytes, { 'content-type': 'application/octet-stream' })).status).to.equal(204);
    const [batch] = await app.waitFor('/raw');
    const [entry] = entriesOf(batch!);
    expect(entry!.contentType).to.equal('application/octet-stream');
    expect(Buffer.from(entry!.event as string, 'base64')).to.deep.equal(bytes);
  });

  it('redelivers a whole batch the app failed (500) and lists bulkSubscribe in the metadata', async () => {
    const meta = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { subscriptions: Array<{ topic: string; bulkSubscribe?: unknown }> };
    expect(meta.subscriptions.find((s) => s.topic === 'batched')?.bulkSubscribe).to.deep.equal(BULK);
    expect(meta.subscriptions.find((s) => s.topic === 'dead')).to.not.have.property('bulkSubscribe');
    const before = app.to('/batched').length;
    app.answers.set('/batched', [{ status: 500 }, { status: 200, bodyFor: (d) => ({ statuses: entriesOf(d).map((e) => ({ entryId: e.entryId, status: 'SUCCESS' })) }) }]);
    expect((await bulkPublish('batched', [{ kind: 'again', n: 99 }])).status).to.equal(204);
    const got = await app.waitFor('/batched', before + 2);
    expect(got.slice(before).map((d) => dataOf(entriesOf(d)[0]!).n)).to.deep.equal([99, 99]);
  });
});
