/**
 * A real Go program on the Dapr Go SDK client (github.com/dapr/go-sdk/client v1.11.0, gRPC only) against svcd:
 * e2e/go/runtime-client runs its steps — state with ETags, bulk and transactions, publish and bulk publish,
 * an output binding, metadata, workflow management, secrets, errors — and prints what each observed; each `it` checks one.
 */
import { expect } from 'chai';
import { componentYaml, ExampleComponent, SubscriberApp, SvcdProcess, tempSocketsFolder } from '@svc/runtime/test-support';
import { buildGoProgram, runGoProgram, stepObserved, type GoProgramRun } from '../support/go-program.js';

const TOKEN = 'e2e-go-client-token';

describe('Dapr Go SDK client over gRPC against svcd (e2e/go/runtime-client)', function () {
  this.timeout(60_000);
  let component: ExampleComponent;
  let app: SubscriberApp;
  let svcd: SvcdProcess;
  let program: GoProgramRun;

  before(async function () {
    this.timeout(300_000); // the first build downloads the SDK's modules
    const binary = await buildGoProgram('runtime-client');
    const folder = tempSocketsFolder();
    component = await ExampleComponent.start({ folder, name: 'memstore' });
    app = await SubscriberApp.start([{ pubsubname: 'pubsub', topic: 'orders', route: '/orders' }]);
    app.actorTypes = ['Counter'];
    app.answers.set('/actors/Counter/c1/method/add', [{ status: 200, body: { total: 2 } }]);
    svcd = await SvcdProcess.start({
      socketsFolder: folder,
      env: { SVC_API_TOKEN: TOKEN, GO_SECRET_token: 'go-secret-value' },
      resources: {
        'state.yaml': componentYaml('statestore', 'state.sqlite', { actorStateStore: 'true' }),
        'pubsub.yaml': componentYaml('pubsub', 'pubsub.in-memory'),
        'outbox.yaml': componentYaml('outbox', 'bindings.memstore'),
        'envstore.yaml': componentYaml('envstore', 'secretstores.local.env', { prefix: 'GO_SECRET_' }),
      },
      args: ['--app-port', String(app.port)],
    });
    program = await runGoProgram(binary, { grpcPort: svcd.ports.grpc, apiToken: TOKEN, killAfterMs: 60_000 });
  });
  after(async () => {
    await svcd?.dispose();
    await app?.stop();
    await component?.stop();
  });

  const observed = (step: string) => stepObserved(program, step);

  it('saves and reads state with ETags (a stale one refused), runs a transaction, bulk-reads and deletes', () => {
    const o = observed('state');
    expect(o).to.deep.include({ value: '{"n":1}', etagSet: true, afterDelete: '' });
    expect(o.staleSave).to.match(/^Aborted: .*etag/i);
    expect(o.bulk).to.deep.equal({ order: '{"n":3}', a: '"A"', b: '"B"', missing: '' });
  });

  it('saves a value with ttlInSeconds that reads with its expiry time, then expires; a bad ttl is InvalidArgument', () => {
    const o = observed('state-ttl');
    expect(o).to.deep.include({ live: '"s"', expireTimeSet: true, afterExpiry: '' });
    expect(o.badTTL).to.match(/^InvalidArgument: .*ttlInSeconds 'soon'/);
  });

  it('reads a secret and the bulk of a secret store; an unknown store is InvalidArgument', () => {
    const o = observed('secrets');
    expect(o.secret).to.deep.equal({ token: 'go-secret-value' });
    expect(o.bulk).to.deep.equal({ token: { token: 'go-secret-value' } });
    expect(o.unknownStore).to.match(/^InvalidArgument: .*failed finding secret store with key nope/);
  });

  it('gets the catalogue status for an unknown store', () => {
    expect(observed('state-errors').unknownStore).to.match(/^InvalidArgument: .*state store nope is not found$/);
  });

  it('publishes one and two events the app receives, and is refused an unknown pub/sub', async () => {
    const o = observed('publish');
    expect(o.failedEvents).to.equal(0);
    expect(o.unknownPubsub).to.match(/^InvalidArgument: .*pubsub nope not found/);
    const got = await app.waitFor('/orders', 3);
    expect(got.map((d) => d.body.data)).to.deep.include.members([{ orderId: 1 }, { orderId: 2 }, { orderId: 3 }]);
  });

  it('invokes an output binding and reads its answer; an unsupported operation is InvalidArgument', () => {
    const o = observed('binding');
    expect(JSON.parse(o.created as string)).to.have.property('id');
    expect(JSON.parse(o.got as string)).to.deep.equal({ order: 7 });
    expect(o.unsupported).to.match(/^InvalidArgument: .*binding outbox does not support operation explode/);
  });

  it('sets and reads metadata: app id, components, the attribute, subscriptions', () => {
    expect(observed('metadata')).to.deep.equal({ id: 'testapp', components: ['envstore', 'outbox', 'pubsub', 'statestore'], extended: { team: 'payments' }, topics: ['orders'] });
  });

  it('starts, reads, terminates and purges a workflow instance through the Beta1 methods', () => {
    const { afterPurge, ...o } = observed('workflow');
    expect(afterPurge).to.match(/code = NotFound desc = unable to find workflow with the provided instance ID: go-wf-1$/);
    expect(o).to.deep.equal({
      instanceID: 'go-wf-1',
      name: 'notRegistered',
      status: 'PENDING',
      input: '{"n":1}',
      createdRecently: true,
      afterTerminate: 'TERMINATED',
    });
  });

  it('receives a streaming subscription (Subscribe): events published after it, a RETRY delivered again', () => {
    expect(observed('streaming')).to.deep.equal({ subscribedInMetadata: true, received: [1, 2, 3], retried: true });
  });

  it('invokes an app-hosted actor, runs its state transaction and reads it, registers a reminder and a timer the app receives', () => {
    const o = observed('actors');
    expect(o).to.deep.include({ invoked: '{"total":2}', count: '5', deleted: '' });
    expect(o.notHosted).to.match(/^InvalidArgument: .*NotHere/);
    const calls = app.deliveries.filter((d) => d.path.startsWith('/actors/Counter/c1/'));
    expect(calls.find((d) => d.path === '/actors/Counter/c1/method/add')?.body).to.deep.equal({ by: 2 });
    expect(calls.find((d) => d.path === '/actors/Counter/c1/method/remind/ping')?.body).to.deep.include({ data: { r: 1 } });
    expect(calls.find((d) => d.path === '/actors/Counter/c1/method/timer/tick')?.body).to.deep.include({ callback: 'onTick', data: { t: 1 } });
  });
});
