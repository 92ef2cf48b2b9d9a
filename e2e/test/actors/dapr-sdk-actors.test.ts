/**
 * `@dapr/dapr`'s actor classes against svcd, unchanged: a `DaprServer` hosts an actor (state manager, reminders,
 * timers), an `ActorProxyBuilder` proxy calls it through svcd's actor API, and svcd calls the app back.
 */
import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { AbstractActor, ActorId, ActorProxyBuilder, CommunicationProtocolEnum, DaprClient, DaprServer, LogLevel, Temporal } from '@dapr/dapr';
import { SvcdProcess, componentYaml, freePort } from '@svc/runtime/test-support';

const logger = { level: LogLevel.Error };
const fired = new EventEmitter();
const reminders: { id: string; data: unknown }[] = [];
const ticks: string[] = [];

/**
 * A `Temporal.Duration`: `@dapr/dapr` re-exports Temporal from a polyfill nested in its own node_modules, whose
 * types TypeScript cannot resolve from this workspace (they type-check as unresolved), hence the one exemption.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access
const duration = (milliseconds: number): Temporal.Duration => Temporal.Duration.from({ milliseconds });

interface ICounterActor {
  add(n: number): Promise<number>;
  total(): Promise<number>;
  remindMe(note: string): Promise<void>;
  startTicking(): Promise<void>;
  stopTicking(): Promise<void>;
}

class CounterActor extends AbstractActor implements ICounterActor {
  async add(n: number): Promise<number> {
    const sm = this.getStateManager<number>();
    const current = (await sm.tryGetState('total'))[1] ?? 0;
    await sm.setState('total', current + n);
    return current + n;
  }

  async total(): Promise<number> {
    return (await this.getStateManager<number>().tryGetState('total'))[1] ?? 0;
  }

  async remindMe(note: string): Promise<void> {
    // A string payload: the SDK hands reminder data to receiveReminder through `String(data)` + JSON.parse, so
    // it round-trips strings and numbers (an object arrives as "[object Object]" when the sidecar sends the data
    // as JSON, as Dapr does).
    await this.registerActorReminder('note', duration(200), undefined, undefined, note);
  }

  async startTicking(): Promise<void> {
    await this.registerActorTimer('tick', 'onTick', duration(50), duration(100));
  }

  async stopTicking(): Promise<void> {
    await this.unregisterActorTimer('tick');
  }

  async onTick(): Promise<void> {
    ticks.push(this.getActorId().getId());
    fired.emit('tick');
    return Promise.resolve();
  }

  override async receiveReminder(data: unknown): Promise<void> {
    reminders.push({ id: this.getActorId().getId(), data });
    fired.emit('reminder');
    return Promise.resolve();
  }
}

function waitFor(event: string, pred: () => boolean, what: string): Promise<void> {
  if (pred()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!pred()) return;
      clearTimeout(timer);
      fired.off(event, check);
      resolve();
    };
    const timer = setTimeout(() => {
      fired.off(event, check);
      reject(new Error(`timed out waiting for ${what}`));
    }, 20_000);
    fired.on(event, check);
  });
}

describe('@dapr/dapr actors (DaprServer + ActorProxyBuilder) against svcd', function () {
  this.timeout(60_000);
  let svcd: SvcdProcess;
  let server: DaprServer;
  let client: DaprClient;

  before(async () => {
    const appPort = await freePort();
    const ports = { http: await freePort(), grpc: await freePort(), metrics: await freePort() };
    const clientOptions = { daprHost: '127.0.0.1', daprPort: String(ports.http), communicationProtocol: CommunicationProtocolEnum.HTTP, logger };
    server = new DaprServer({ serverHost: '127.0.0.1', serverPort: String(appPort), communicationProtocol: CommunicationProtocolEnum.HTTP, clientOptions, logger });
    await server.actor.init();
    await server.actor.registerActor(CounterActor);
    // The app listens first and then waits for the sidecar; svcd waits for the app's /dapr/config.
    const serverStarted = server.start();
    svcd = await SvcdProcess.start({
      appId: `actors-sdk-${randomBytes(4).toString('hex')}`,
      ports,
      resources: { 'store.yaml': componentYaml('actorstore', 'state.sqlite', { actorStateStore: 'true' }) },
      args: ['--app-port', String(appPort)],
    });
    await serverStarted;
    client = new DaprClient(clientOptions);
  });

  after(async () => {
    await svcd.stop();
    await server.stop();
  });

  it('calls actor methods through the proxy, with state kept by svcd', async () => {
    const proxy = new ActorProxyBuilder<ICounterActor>(CounterActor, client).build(new ActorId('c1'));
    expect(await proxy.add(2)).to.equal(2);
    expect(await proxy.add(5)).to.equal(7);
    expect(await proxy.total()).to.equal(7);
    const stored = await svcd.request('GET', '/v1.0/actors/CounterActor/c1/state/total');
    expect(await stored.json()).to.equal(7);
  });

  it('fires a reminder the actor registered, with its data', async () => {
    const proxy = new ActorProxyBuilder<ICounterActor>(CounterActor, client).build(new ActorId('r1'));
    await proxy.remindMe('hello');
    await waitFor('reminder', () => reminders.some((r) => r.id === 'r1'), 'the reminder');
    expect(reminders.find((r) => r.id === 'r1')?.data).to.equal('hello');
    // One-shot: gone once acknowledged.
    await proxy.total(); // queued behind the reminder turn
    expect((await svcd.request('GET', '/v1.0/actors/CounterActor/r1/reminders/note')).status).to.equal(404);
  });

  it('runs and stops a timer the actor registered', async () => {
    const proxy = new ActorProxyBuilder<ICounterActor>(CounterActor, client).build(new ActorId('t1'));
    await proxy.startTicking();
    await waitFor('tick', () => ticks.filter((t) => t === 't1').length >= 3, 'three ticks');
    await proxy.stopTicking();
    const count = ticks.length;
    await proxy.total();
    await proxy.total();
    expect(ticks.length).to.equal(count);
  });
});
