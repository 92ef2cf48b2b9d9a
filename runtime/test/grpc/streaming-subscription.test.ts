/**
 * Streaming subscriptions (SubscribeTopicEventsAlpha1) with a raw gRPC client against a real svcd on Redis: subscribe,
 * receive, answer; a message left unanswered when the stream ends goes to the next subscriber; a second
 * subscription to the same topic, an unknown pub/sub and a malformed first message are refused with codes.
 */
import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import { loadRuntimeApiProto } from '@svc/proto';
import { randomUUID } from 'node:crypto';
import { componentYaml, deleteRedisKeysWithPrefix, SvcdProcess, TEST_REDIS_HOST } from '../support/index.js';

interface EventMessage {
  id: string;
  data: Buffer;
  topic: string;
}
interface Response {
  initialResponse?: object;
  eventMessage?: EventMessage;
}

class Subscriber {
  readonly events: EventMessage[] = [];
  readonly #stream: grpc.ClientDuplexStream<unknown, Response>;
  #waiters: (() => void)[] = [];
  error: grpc.ServiceError | undefined;
  readonly initial: Promise<void>;

  constructor(client: grpc.Client, first: unknown) {
    const method = loadRuntimeApiProto().services[1]!.definition.SubscribeTopicEventsAlpha1!;
    this.#stream = client.makeBidiStreamRequest(method.path, method.requestSerialize, method.responseDeserialize as (b: Buffer) => Response);
    this.initial = new Promise((resolve, reject) => {
      this.#stream.on('data', (r: Response) => {
        if (r.initialResponse) resolve();
        if (r.eventMessage) this.events.push(r.eventMessage);
        for (const w of this.#waiters.splice(0)) w();
      });
      this.#stream.on('error', (err: grpc.ServiceError) => {
        this.error = err;
        reject(err);
        for (const w of this.#waiters.splice(0)) w();
      });
    });
    this.initial.catch(() => undefined);
    this.#stream.write(first);
  }

  async waitFor(count: number): Promise<EventMessage[]> {
    const deadline = Date.now() + 10_000;
    while (this.events.length < count) {
      if (this.error || Date.now() > deadline) throw new Error(`${this.events.length} of ${count} events (${this.error?.message ?? 'timeout'})`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
    return this.events;
  }

  answer(id: string, status: 'SUCCESS' | 'RETRY' | 'DROP'): void {
    this.#stream.write({ eventProcessed: { id, status: { status } } });
  }

  close(): void {
    this.#stream.cancel();
  }
}

describe('gRPC streaming subscriptions (SubscribeTopicEventsAlpha1, raw client)', function () {
  this.timeout(60_000);
  let svcd: SvcdProcess;
  let client: grpc.Client;
  const prefix = `stream-${randomUUID().slice(0, 8)}-`;
  const publish = (topic: string, body: unknown) => svcd.request('POST', `/v1.0/publish/pubsub/${prefix}${topic}`, body);
  const subscribe = (topic: string, pubsubName = 'pubsub') => new Subscriber(client, { initialRequest: { pubsubName, topic: prefix + topic, metadata: { retryInitialInterval: '20ms' } } });

  before(async () => {
    svcd = await SvcdProcess.start({ resources: { 'pubsub.yaml': componentYaml('pubsub', 'pubsub.redis', { redisHost: TEST_REDIS_HOST }) } });
    const Client = grpc.makeGenericClientConstructor({}, 'Stream');
    client = new Client(`127.0.0.1:${svcd.ports.grpc}`, grpc.credentials.createInsecure());
  });
  after(async () => {
    client?.close();
    await svcd?.dispose();
    await deleteRedisKeysWithPrefix(prefix);
  });

  it('delivers events as CloudEvents, honours RETRY, and lists the subscription as STREAMING', async () => {
    const sub = subscribe('orders');
    await sub.initial;
    const meta = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { subscriptions: Array<{ topic: string; type: string }> };
    expect(meta.subscriptions.find((s) => s.topic === `${prefix}orders`)?.type).to.equal('STREAMING');
    expect((await publish('orders', { n: 1 })).status).to.equal(204);
    const [first] = await sub.waitFor(1);
    expect(JSON.parse(first!.data.toString())).to.deep.equal({ n: 1 });
    sub.answer(first!.id, 'RETRY');
    const again = (await sub.waitFor(2))[1]!;
    expect(again.id).to.equal(first!.id);
    sub.answer(again.id, 'SUCCESS');
    await new Promise((r) => setTimeout(r, 300));
    expect(sub.events).to.have.length(2);
    sub.close();
  });

  it('hands a message left unanswered when the stream ended to the next subscriber', async () => {
    const first = subscribe('jobs');
    await first.initial;
    expect((await publish('jobs', { job: 7 })).status).to.equal(204);
    await first.waitFor(1);
    first.close(); // no answer: the broker keeps it
    await new Promise((r) => setTimeout(r, 300));
    const second = subscribe('jobs');
    await second.initial;
    const [redelivered] = await second.waitFor(1);
    expect(JSON.parse(redelivered!.data.toString())).to.deep.equal({ job: 7 });
    second.answer(redelivered!.id, 'SUCCESS');
    second.close();
  });

  it('refuses a second subscription to a topic, an unknown pub/sub and a malformed first message', async () => {
    const holder = subscribe('busy');
    await holder.initial;
    const cases: [Subscriber, number, string][] = [
      [subscribe('busy'), grpc.status.ALREADY_EXISTS, 'already subscribes'],
      [subscribe('x', 'nope'), grpc.status.INVALID_ARGUMENT, 'pubsub nope not found'],
      [new Subscriber(client, { eventProcessed: { id: '1' } }), grpc.status.INVALID_ARGUMENT, 'initial_request'],
    ];
    for (const [sub, code, text] of cases) {
      const err = await sub.initial.then(
        () => undefined,
        (e: grpc.ServiceError) => e,
      );
      expect([err?.code, err?.details], String(err)).to.satisfy(([c, d]: [number, string]) => c === code && d.includes(text));
    }
    holder.close();
  });
});
