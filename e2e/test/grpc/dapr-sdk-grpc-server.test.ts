/* eslint-disable @typescript-eslint/require-await -- the SDK takes async callbacks; these handlers only record */
/**
 * The app channel over gRPC (`--app-protocol grpc`) with the real @dapr/dapr SDK, unchanged: a DaprServer with
 * CommunicationProtocolEnum.GRPC subscribes (plain, with routing rules, with a dead-letter topic, in bulk) and
 * listens for an input binding; svcd reads its subscriptions with ListTopicSubscriptions and delivers with
 * OnTopicEvent, OnBulkTopicEvent and OnBindingEvent; the app's RETRY and DROP are honoured.
 */
import { expect } from 'chai';
import { componentYaml, eventually } from '@svc/runtime/test-support';
import { startDaprSdkApp, type DaprSdkApp } from '../support/dapr-sdk-app.js';
import { describeSubscriberBehaviour, SdkSubscriber } from '../support/sdk-subscriber.js';

describe('Dapr JS SDK DaprServer over gRPC (the app channel over gRPC) against svcd', function () {
  this.timeout(90_000);
  let app: DaprSdkApp;
  const subscriber = new SdkSubscriber();
  const ticks: unknown[] = [];

  before(async () => {
    app = await startDaprSdkApp(
      async (server) => {
        await subscriber.register(server, '');
        await server.binding.receive('ticks', async (data: unknown) => void ticks.push(data ?? null));
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
  });
  after(async () => {
    await app?.stop();
  });

  it('reads the subscriptions with ListTopicSubscriptions', async () => {
    const meta = (await (await app.svcd.request('GET', '/v1.0/metadata')).json()) as { subscriptions: Array<{ topic: string; type: string }> };
    expect(meta.subscriptions.map((s) => s.topic).sort()).to.deep.equal(['batch', 'flaky', 'orders', 'refused', 'refused-dead', 'shapes']);
    expect(new Set(meta.subscriptions.map((s) => s.type))).to.deep.equal(new Set(['PROGRAMMATIC']));
  });

  describeSubscriberBehaviour(() => ({ client: app.client, subscriber }));

  it('delivers the input binding the app lists (ListInputBindings) with OnBindingEvent, and leaves the other unread', async () => {
    await eventually('two cron firings received', () => Promise.resolve(ticks.length >= 2), 10_000);
    expect(app.svcd.output).to.match(/"binding":"unheard".*the app does not listen for this input binding/);
  });
});
