/**
 * The real @dapr/dapr SDK, unchanged, against svcd over HTTP: a DaprServer app subscribes (plain, with routing
 * rules, with a dead-letter topic, in bulk), a DaprClient publishes (single, with metadata, bulk); the app's RETRY
 * and DROP answers are honoured.
 */
import { componentYaml, eventually } from '@svc/runtime/test-support';
import { expect } from 'chai';
import { startDaprSdkApp, type DaprSdkApp } from '../support/dapr-sdk-app.js';
import { describeSubscriberBehaviour, SdkSubscriber } from '../support/sdk-subscriber.js';

describe('Dapr JS SDK pub/sub (DaprServer subscriber, DaprClient publisher) against svcd', function () {
  this.timeout(90_000);
  let app: DaprSdkApp;
  const subscriber = new SdkSubscriber();

  before(async () => {
    app = await startDaprSdkApp((server) => subscriber.register(server, '/'), { resources: { 'pubsub.yaml': componentYaml('pubsub', 'pubsub.in-memory') } });
  });
  after(async () => {
    await app?.stop();
  });

  describeSubscriberBehaviour(() => ({ client: app.client, subscriber }));

  it('bulk publishes through the SDK; a pub/sub that does not exist is an error the SDK reports', async () => {
    const before = subscriber.received.orders.length;
    const res = await app.client.pubsub.publishBulk('pubsub', 'orders', [{ bulk: 1 }, { bulk: 2 }]);
    expect(res.failedMessages).to.deep.equal([]);
    await eventually('bulk entries delivered', () => Promise.resolve(subscriber.received.orders.length === before + 2));
    const missing = await app.client.pubsub.publish('nope', 'orders', {});
    expect(String(missing.error)).to.match(/ERR_PUBSUB_NOT_FOUND|404/);
  });
});
