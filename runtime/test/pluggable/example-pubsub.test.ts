/** The example component's pub/sub API over its real socket, as a pluggable pub/sub client would use it. */
import * as grpc from '@grpc/grpc-js';
import { loadComponentsProto } from '@svc/proto';
import type { PullMessagesResponse__Output } from '@svc/proto/gen/svc/proto/components/v1/PullMessagesResponse.js';
import { expect } from 'chai';
import { ExampleComponent, tempSocketsFolder } from '../support/example-component.js';

describe('example pluggable component: pub/sub', function () {
  this.timeout(30_000);
  let component: ExampleComponent;
  let client: InstanceType<ReturnType<typeof loadComponentsProto>['svc.proto.components.v1']['grpc']['PubSub']>;
  const md = (instance: string) => {
    const m = new grpc.Metadata();
    m.set('x-component-instance', instance);
    return m;
  };
  const unary = <T>(call: (cb: (err: grpc.ServiceError | null, res?: T) => void) => void) =>
    new Promise<T>((resolve, reject) => call((err, res) => (err ? reject(err) : resolve(res as T))));

  before(async () => {
    component = await ExampleComponent.start({ folder: tempSocketsFolder(), name: 'bus' });
    const { PubSub } = loadComponentsProto()['svc.proto.components.v1'].grpc;
    client = new PubSub(`unix://${component.socketPath}`, grpc.credentials.createInsecure());
    await unary((cb) => client.Init({ metadata: { properties: {} } }, md('events'), cb));
  });
  after(async () => {
    client?.close();
    await component?.stop();
  });

  it('refuses calls for an instance that was never initialised', async () => {
    const err = await unary((cb) => client.Publish({ topic: 't', data: Buffer.from('x') }, md('other'), cb)).catch((e: grpc.ServiceError) => e);
    expect((err as grpc.ServiceError).code).to.equal(grpc.status.FAILED_PRECONDITION);
  });

  it('delivers queued messages to a subscriber and redelivers a nacked one', async () => {
    await unary((cb) => client.Publish({ topic: 'orders', data: Buffer.from('first'), contentType: 'text/plain' }, md('events'), cb));
    const stream = client.PullMessages(md('events'));
    const received: PullMessagesResponse__Output[] = [];
    const next = () => new Promise<PullMessagesResponse__Output>((resolve) => stream.once('data', (m: PullMessagesResponse__Output) => resolve(m)));
    stream.write({ topic: { name: 'orders', metadata: {} } });
    received.push(await next());
    expect([received[0]!.data.toString(), received[0]!.topicName, received[0]!.contentType]).to.deep.equal(['first', 'orders', 'text/plain']);
    const again = next();
    stream.write({ ackMessageId: received[0]!.id, ackError: { message: 'try later' } });
    const redelivered = await again;
    expect(redelivered.data.toString()).to.equal('first');
    expect(redelivered.id).to.not.equal(received[0]!.id);
    stream.write({ ackMessageId: redelivered.id });
    // Closing our side ends the subscription; the component then closes the stream with OK.
    const status = new Promise<grpc.StatusObject>((resolve) => stream.on('status', resolve));
    stream.end();
    expect((await status).code).to.equal(grpc.status.OK);
  });
});
