/**
 * What every pub/sub must do, checked through a real svcd and a real subscribing app: delivery of JSON, text and
 * binary payloads intact, per-subscription isolation, order with concurrency 1, redelivery by the broker of what
 * the app did not take (the runner gives it back after `maxDeliveryAttempts`), and many messages at once.
 * `componentYaml(topicPrefix)` gives the Component document of the pub/sub named `pubsub` under test.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { SubscriberApp } from '../support/subscriber-app.js';
import { SvcdProcess, type SvcdOptions } from '../support/svcd-process.js';

export interface PubSubConformanceOptions {
  /** The Component YAML (named `pubsub`); it should make redelivery of unacknowledged messages fast (≤ 2 s). */
  readonly componentYaml: () => string;
  readonly cleanup?: (topicPrefix: string) => Promise<void>;
  /** Runs before svcd starts (e.g. a pluggable component process); what it returns is added to svcd's options. */
  readonly setUp?: () => Promise<Partial<SvcdOptions>>;
  readonly tearDown?: () => Promise<void>;
}

export function describePubSubConformance(label: string, opts: PubSubConformanceOptions): void {
  describe(`pub/sub conformance: ${label}`, function () {
    this.timeout(60_000);
    const prefix = `conf-${randomUUID().slice(0, 8)}-`;
    const t = (name: string) => `${prefix}${name}`;
    let app: SubscriberApp;
    let svcd: SvcdProcess;
    const publish = (topic: string, body: unknown, headers: Record<string, string> = {}, query = '') =>
      svcd.request('POST', `/v1.0/publish/pubsub/${topic}${query}`, body, headers);

    before(async () => {
      app = await SubscriberApp.start([
        { pubsubname: 'pubsub', topic: t('a'), route: '/a' },
        { pubsubname: 'pubsub', topic: t('b'), route: '/b' },
        { pubsubname: 'pubsub', topic: t('raw'), route: '/raw', metadata: { rawPayload: 'true' } },
        { pubsubname: 'pubsub', topic: t('ordered'), route: '/ordered', metadata: { concurrency: '1' } },
        { pubsubname: 'pubsub', topic: t('unlucky'), route: '/unlucky', metadata: { maxDeliveryAttempts: '1' } },
        { pubsubname: 'pubsub', topic: t('many'), route: '/many', metadata: { concurrency: '16' } },
        { pubsubname: 'pubsub', topic: t('bulk'), route: '/bulk' },
      ]);
      app.answers.set('/unlucky', [{ status: 500 }, { status: 500 }, { status: 200 }]);
      const extra = (await opts.setUp?.()) ?? {};
      svcd = await SvcdProcess.start({ ...extra, resources: { 'pubsub.yaml': opts.componentYaml() }, args: ['--app-port', String(app.port)] });
    });
    after(async () => {
      await svcd?.dispose();
      await app?.stop();
      await opts.tearDown?.();
      await opts.cleanup?.(prefix);
    });

    it('delivers JSON, text and binary payloads intact, each topic to its own subscription only', async () => {
      expect((await publish(t('a'), { n: 1, s: 'é' })).status).to.equal(204);
      expect((await publish(t('b'), 'plain text', { 'content-type': 'text/plain' })).status).to.equal(204);
      const bytes = Buffer.from([0xff, 0, 0x80, 7]);
      expect((await publish(t('raw'), bytes, { 'content-type': 'application/octet-stream' }, '?metadata.rawPayload=true')).status).to.equal(204);
      expect((await app.waitFor('/a'))[0]!.body.data).to.deep.equal({ n: 1, s: 'é' });
      expect((await app.waitFor('/b'))[0]!.body.data).to.equal('plain text');
      expect(Buffer.from((await app.waitFor('/raw'))[0]!.body.data_base64 as string, 'base64')).to.deep.equal(bytes);
      await new Promise((r) => setTimeout(r, 200));
      expect([app.to('/a').length, app.to('/b').length, app.to('/raw').length]).to.deep.equal([1, 1, 1]);
    });

    it('keeps publishing order with concurrency 1', async () => {
      for (let i = 0; i < 20; i++) expect((await publish(t('ordered'), { i })).status).to.equal(204);
      const got = await app.waitFor('/ordered', 20);
      expect(got.map((d) => (d.body.data as { i: number }).i)).to.deep.equal([...Array(20).keys()]);
    });

    it('redelivers a message the app did not take (given back to the broker) until it is taken', async () => {
      expect((await publish(t('unlucky'), { once: 'more' })).status).to.equal(204);
      const got = await app.waitFor('/unlucky', 3, 30_000);
      expect(new Set(got.map((d) => d.body.id)).size).to.equal(1);
      await new Promise((r) => setTimeout(r, 2500));
      expect(app.to('/unlucky'), 'acknowledged after the 200: not delivered again').to.have.length(3);
    });

    it('delivers 300 messages published by 10 publishers at once, each at least once', async () => {
      await Promise.all(Array.from({ length: 10 }, async (_, p) => {
        for (let i = 0; i < 30; i++) expect((await publish(t('many'), { k: `${p}-${i}` })).status).to.equal(204);
      }));
      await app.waitFor('/many', 300, 30_000);
      expect(new Set(app.to('/many').map((d) => (d.body.data as { k: string }).k)).size).to.equal(300);
    });

    it('bulk publishes 50 entries in one request, each delivered once', async () => {
      const entries = Array.from({ length: 50 }, (_, i) => ({ entryId: String(i), event: { i }, contentType: 'application/json' }));
      expect((await svcd.request('POST', `/v1.0-alpha1/publish/bulk/pubsub/${t('bulk')}`, entries)).status).to.equal(204);
      await app.waitFor('/bulk', 50, 30_000);
      await new Promise((r) => setTimeout(r, 300));
      expect(app.to('/bulk').map((d) => (d.body.data as { i: number }).i).sort((a, b) => a - b)).to.deep.equal([...Array(50).keys()]);
    });
  });
}
