/* eslint-disable @typescript-eslint/require-await -- the SDK takes async callbacks; these handlers only record */
/**
 * One @dapr/dapr DaprServer subscriber, the same over either app channel: it subscribes plainly (`orders`), with
 * routing rules (`shapes`), answering RETRY twice (`flaky`), answering DROP with a dead-letter topic it also
 * subscribes to (`refused`), and in bulk (`batch`); `describeSubscriberBehaviour` checks what it receives.
 */
import { DaprPubSubStatusEnum, type DaprClient, type DaprServer } from '@dapr/dapr';
import { eventually } from '@svc/runtime/test-support';
import { expect } from 'chai';

export class SdkSubscriber {
  readonly received: Record<'orders' | 'big' | 'small' | 'retried' | 'dead' | 'batch', unknown[]> = { orders: [], big: [], small: [], retried: [], dead: [], batch: [] };
  retryCalls = 0;

  /** `routePrefix`: `/` for HTTP paths; gRPC route names are names, passed back as they were. */
  async register(server: DaprServer, routePrefix: '/' | ''): Promise<void> {
    const r = this.received;
    await server.pubsub.subscribe('pubsub', 'orders', async (data: unknown) => void r.orders.push(data));
    await server.pubsub.subscribeWithOptions('pubsub', 'shapes', {
      route: { rules: [{ match: 'event.data.size == "big"', path: `${routePrefix}shapes-big` }], default: `${routePrefix}shapes-small` },
    });
    server.pubsub.subscribeToRoute('pubsub', 'shapes', `${routePrefix}shapes-big`, async (data: unknown) => void r.big.push(data));
    server.pubsub.subscribeToRoute('pubsub', 'shapes', `${routePrefix}shapes-small`, async (data: unknown) => void r.small.push(data));
    await server.pubsub.subscribe('pubsub', 'flaky', async (data: unknown) => {
      this.retryCalls++;
      if (this.retryCalls < 3) return DaprPubSubStatusEnum.RETRY;
      r.retried.push(data);
      return DaprPubSubStatusEnum.SUCCESS;
    });
    await server.pubsub.subscribeWithOptions('pubsub', 'refused', { deadLetterTopic: 'refused-dead', callback: async () => DaprPubSubStatusEnum.DROP });
    // As with Dapr, the dead-letter topic is a topic like any other: the app subscribes to it to see what landed.
    await server.pubsub.subscribe('pubsub', 'refused-dead', async (data: unknown) => void r.dead.push(data));
    await server.pubsub.subscribeBulk('pubsub', 'batch', async (data: unknown) => void r.batch.push(data), { maxMessagesCount: 4, maxAwaitDurationMs: 100 });
  }
}

/** The `it`s every app channel must pass with an `SdkSubscriber` app; `fixture` is read when they run. */
export function describeSubscriberBehaviour(fixture: () => { client: DaprClient; subscriber: SdkSubscriber }): void {
  it('delivers what DaprClient publishes to the DaprServer callback, data as the publisher sent it', async () => {
    const { client, subscriber } = fixture();
    const res = await client.pubsub.publish('pubsub', 'orders', { orderId: 42 });
    expect(res.error).to.equal(undefined);
    await client.pubsub.publish('pubsub', 'orders', 'plain text', { contentType: 'text/plain' });
    await eventually('both orders delivered', () => Promise.resolve(subscriber.received.orders.length === 2));
    expect(subscriber.received.orders).to.deep.include({ orderId: 42 });
    expect(subscriber.received.orders).to.include('plain text');
  });

  it('routes by the subscription rules the SDK declared', async () => {
    const { client, subscriber } = fixture();
    await client.pubsub.publish('pubsub', 'shapes', { size: 'big' });
    await client.pubsub.publish('pubsub', 'shapes', { size: 'tiny' });
    await eventually('both shapes routed', () => Promise.resolve(subscriber.received.big.length === 1 && subscriber.received.small.length === 1));
    expect(subscriber.received.big[0]).to.deep.equal({ size: 'big' });
    expect(subscriber.received.small[0]).to.deep.equal({ size: 'tiny' });
  });

  it('redelivers on RETRY and moves a DROPped message to the dead-letter topic, which the app subscribes to', async () => {
    const { client, subscriber } = fixture();
    await client.pubsub.publish('pubsub', 'flaky', { try: 'again' });
    await client.pubsub.publish('pubsub', 'refused', { no: 'thanks' });
    await eventually('retried until SUCCESS and dead-lettered', () => Promise.resolve(subscriber.received.retried.length === 1 && subscriber.received.dead.length === 1));
    expect(subscriber.retryCalls).to.equal(3);
    expect(subscriber.received.dead[0]).to.deep.equal({ no: 'thanks' });
  });

  it('delivers to a subscribeBulk callback in batches, each entry once', async () => {
    const { client, subscriber } = fixture();
    const res = await client.pubsub.publishBulk('pubsub', 'batch', Array.from({ length: 10 }, (_, n) => ({ n })));
    expect(res.failedMessages).to.deep.equal([]);
    await eventually('ten entries delivered', () => Promise.resolve(subscriber.received.batch.length >= 10));
    await new Promise((r) => setTimeout(r, 300));
    expect((subscriber.received.batch as Array<{ n: number }>).map((d) => d.n).sort((a, b) => a - b)).to.deep.equal([...Array(10).keys()]);
  });
}
