/* eslint-disable @typescript-eslint/require-await -- the SDK takes async callbacks; these handlers only record */
/**
 * The app channel over gRPC (`--app-protocol grpc`) with the real @dapr/dapr SDK, unchanged: a DaprServer with
 * CommunicationProtocolEnum.GRPC subscribes (plain, with routing rules, with a dead-letter topic, in bulk) and
 * listens for an input binding; svcd reads its subscriptions with ListTopicSubscriptions and delivers with
 * OnTopicEvent, OnBulkTopicEvent and OnBindingEvent; the app's RETRY and DROP are honoured.
 */
import { DaprPubSubStatusEnum, type DaprClient } from '@dapr/dapr';
import { expect } from 'chai';
import { componentYaml, eventually } from '@svc/runtime/test-support';
import { startDaprSdkApp, type DaprSdkApp } from '../support/dapr-sdk-app.js';

describe('Dapr JS SDK DaprServer over gRPC (the app channel over gRPC) against svcd', function () {
  this.timeout(90_000);
  let app: DaprSdkApp;
  let client: DaprClient;
  const received: Record<string, unknown[]> = { orders: [], big: [], small: [], retried: [], dead: [], batch: [], ticks: [] };
  let retryCalls = 0;

  before(async () => {
    app = await startDaprSdkApp(
      async (server) => {
        await server.pubsub.subscribe('pubsub', 'orders', async (data: unknown) => void received.orders!.push(data));
        await server.pubsub.subscribeWithOptions('pubsub', 'shapes', {
          route: { rules: [{ match: 'event.data.size == "big"', path: 'shapes-big' }], default: 'shapes-small' },
        });
        server.pubsub.subscribeToRoute('pubsub', 'shapes', 'shapes-big', async (data: unknown) => void received.big!.push(data));
        server.pubsub.subscribeToRoute('pubsub', 'shapes', 'shapes-small', async (data: unknown) => void received.small!.push(data));
        await server.pubsub.subscribe('pubsub', 'flaky', async (data: unknown) => {
          retryCalls++;
          if (retryCalls < 3) return DaprPubSubStatusEnum.RETRY;
          received.retried!.push(data);
          return DaprPubSubStatusEnum.SUCCESS;
        });
        await server.pubsub.subscribeWithOptions('pubsub', 'refused', { deadLetterTopic: 'refused-dead', callback: async () => DaprPubSubStatusEnum.DROP });
        await server.pubsub.subscribe('pubsub', 'refused-dead', async (data: unknown) => void received.dead!.push(data));
        await server.pubsub.subscribeBulk('pubsub', 'batch', async (data: unknown) => void received.batch!.push(data), { maxMessagesCount: 4, maxAwaitDurationMs: 100 });
        await server.binding.receive('ticks', async (data: unknown) => void received.ticks!.push(data ?? null));
      },
      {
        resources: {
          'pubsub.yaml': componentYaml('pubsub', 'pubsub.in-memory'),
          'ticks.yaml': componentYaml('ticks', 'bindings.cron', { schedule: '@every 1s' }),
          'unheard.yaml': componentYaml('unheard', 'bindings.cron', { schedule: '@every 1s' }),
        },
      },
      'grpc',
    );
    client = app.client;
  });
  after(async () => {
    await app?.stop();
  });

  it('reads the subscriptions with ListTopicSubscriptions and delivers with OnTopicEvent', async () => {
    await client.pubsub.publish('pubsub', 'orders', { orderId: 42 });
    await client.pubsub.publish('pubsub', 'orders', 'plain text', { contentType: 'text/plain' });
    await eventually('both orders delivered', () => Promise.resolve(received.orders!.length === 2));
    expect(received.orders).to.deep.include({ orderId: 42 });
    expect(received.orders).to.include('plain text');
    const meta = (await (await app.svcd.request('GET', '/v1.0/metadata')).json()) as { subscriptions: Array<{ topic: string; type: string }> };
    expect(meta.subscriptions.map((s) => s.topic).sort()).to.deep.equal(['batch', 'flaky', 'orders', 'refused', 'refused-dead', 'shapes']);
  });

  it('routes by the rules the SDK declared, passing the route names back as the event path', async () => {
    await client.pubsub.publish('pubsub', 'shapes', { size: 'big' });
    await client.pubsub.publish('pubsub', 'shapes', { size: 'tiny' });
    await eventually('both shapes routed', () => Promise.resolve(received.big!.length === 1 && received.small!.length === 1));
    expect(received.big![0]).to.deep.equal({ size: 'big' });
    expect(received.small![0]).to.deep.equal({ size: 'tiny' });
  });

  it('redelivers on RETRY and moves a DROPped message to the dead-letter topic', async () => {
    await client.pubsub.publish('pubsub', 'flaky', { try: 'again' });
    await client.pubsub.publish('pubsub', 'refused', { no: 'thanks' });
    await eventually('retried until SUCCESS and dead-lettered', () => Promise.resolve(received.retried!.length === 1 && received.dead!.length === 1));
    expect(retryCalls).to.equal(3);
    expect(received.dead![0]).to.deep.equal({ no: 'thanks' });
  });

  it('delivers a bulk subscription with OnBulkTopicEvent, each entry once', async () => {
    const res = await client.pubsub.publishBulk('pubsub', 'batch', Array.from({ length: 10 }, (_, n) => ({ n })));
    expect(res.failedMessages).to.deep.equal([]);
    await eventually('ten entries delivered', () => Promise.resolve(received.batch!.length >= 10));
    await new Promise((r) => setTimeout(r, 300));
    expect((received.batch as Array<{ n: number }>).map((d) => d.n).sort((a, b) => a - b)).to.deep.equal([...Array(10).keys()]);
  });

  it('delivers the input binding the app lists (ListInputBindings) with OnBindingEvent, and leaves the other unread', async () => {
    await eventually('two cron firings received', () => Promise.resolve(received.ticks!.length >= 2), 10_000);
    expect(app.svcd.output).to.match(/"binding":"unheard".*the app does not listen for this input binding/);
  });
});
