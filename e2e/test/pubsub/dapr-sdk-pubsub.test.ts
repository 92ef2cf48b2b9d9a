/* eslint-disable @typescript-eslint/require-await -- the SDK takes async callbacks; these handlers only record */
/**
 * The real @dapr/dapr SDK, unchanged, against svcd over HTTP: a DaprServer app subscribes (plain, with routing
 * rules, with a dead-letter topic, in bulk), a DaprClient publishes (single, with metadata, bulk); the app's RETRY and DROP
 * answers are honoured.
 */
import { DaprPubSubStatusEnum, type DaprClient } from '@dapr/dapr';
import { componentYaml, eventually } from '@svc/runtime/test-support';
import { startDaprSdkApp, type DaprSdkApp } from '../support/dapr-sdk-app.js';
import { expect } from 'chai';

describe('Dapr JS SDK pub/sub (DaprServer subscriber, DaprClient publisher) against svcd', function () {
  this.timeout(90_000);
  let app: DaprSdkApp;
  let client: DaprClient;
  const received: Record<string, unknown[]> = { orders: [], big: [], small: [], retried: [], dead: [], bulk: [] };
  let retryCalls = 0;

  before(async () => {
    app = await startDaprSdkApp(
      async (server) => {
        await server.pubsub.subscribe('pubsub', 'orders', async (data: unknown) => void received.orders!.push(data));
        await server.pubsub.subscribeWithOptions('pubsub', 'shapes', {
          route: { rules: [{ match: 'event.data.size == "big"', path: '/shapes-big' }], default: '/shapes-small' },
        });
        server.pubsub.subscribeToRoute('pubsub', 'shapes', '/shapes-big', async (data: unknown) => void received.big!.push(data));
        server.pubsub.subscribeToRoute('pubsub', 'shapes', '/shapes-small', async (data: unknown) => void received.small!.push(data));
        await server.pubsub.subscribe('pubsub', 'flaky', async (data: unknown) => {
          retryCalls++;
          if (retryCalls < 3) return DaprPubSubStatusEnum.RETRY;
          received.retried!.push(data);
          return DaprPubSubStatusEnum.SUCCESS;
        });
        await server.pubsub.subscribeWithOptions('pubsub', 'refused', {
          deadLetterTopic: 'refused-dead',
          callback: async () => DaprPubSubStatusEnum.DROP,
        });
        // As with Dapr, the dead-letter topic is a topic like any other: the app subscribes to it to see what landed.
        await server.pubsub.subscribe('pubsub', 'refused-dead', async (data: unknown) => void received.dead!.push(data));
        await server.pubsub.subscribeBulk('pubsub', 'batch', async (data: unknown) => void received.bulk!.push(data), { maxMessagesCount: 4, maxAwaitDurationMs: 100 });
      },
      { resources: { 'pubsub.yaml': componentYaml('pubsub', 'pubsub.in-memory') } },
    );
    client = app.client;
  });
  after(async () => {
    await app?.stop();
  });

  it('delivers what DaprClient publishes to the DaprServer callback, data as the publisher sent it', async () => {
    const res = await client.pubsub.publish('pubsub', 'orders', { orderId: 42 });
    expect(res.error).to.equal(undefined);
    await client.pubsub.publish('pubsub', 'orders', 'plain text', { contentType: 'text/plain' });
    await eventually('both orders delivered', () => Promise.resolve(received.orders!.length === 2));
    expect(received.orders).to.deep.include({ orderId: 42 });
    expect(received.orders).to.include('plain text');
  });

  it('routes by the subscription rules the SDK declared', async () => {
    await client.pubsub.publish('pubsub', 'shapes', { size: 'big' });
    await client.pubsub.publish('pubsub', 'shapes', { size: 'tiny' });
    await eventually('both shapes routed', () => Promise.resolve(received.big!.length === 1 && received.small!.length === 1));
    expect(received.big![0]).to.deep.equal({ size: 'big' });
    expect(received.small![0]).to.deep.equal({ size: 'tiny' });
  });

  it('redelivers on RETRY and moves a DROPped message to the dead-letter topic, which the app subscribes to', async () => {
    await client.pubsub.publish('pubsub', 'flaky', { try: 'again' });
    await client.pubsub.publish('pubsub', 'refused', { no: 'thanks' });
    await eventually('retried until SUCCESS and dead-lettered', () => Promise.resolve(received.retried!.length === 1 && received.dead!.length === 1));
    expect(retryCalls).to.equal(3);
    expect(received.dead![0]).to.deep.equal({ no: 'thanks' });
  });

  it('bulk publishes through the SDK; a pub/sub that does not exist is an error the SDK reports', async () => {
    const res = await client.pubsub.publishBulk('pubsub', 'orders', [{ bulk: 1 }, { bulk: 2 }]);
    expect(res.failedMessages).to.deep.equal([]);
    await eventually('bulk entries delivered', () => Promise.resolve(received.orders!.length === 4));
    const missing = await client.pubsub.publish('nope', 'orders', {});
    expect(String(missing.error)).to.match(/ERR_PUBSUB_NOT_FOUND|404/);
  });

  it('delivers to a subscribeBulk callback in batches, each entry once', async () => {
    const res = await client.pubsub.publishBulk('pubsub', 'batch', Array.from({ length: 10 }, (_, n) => ({ n })));
    expect(res.failedMessages).to.deep.equal([]);
    await eventually('ten entries delivered', () => Promise.resolve(received.bulk!.length >= 10));
    await new Promise((r) => setTimeout(r, 300));
    expect((received.bulk as Array<{ n: number }>).map((d) => d.n).sort((a, b) => a - b)).to.deep.equal([...Array(10).keys()]);
  });
});
