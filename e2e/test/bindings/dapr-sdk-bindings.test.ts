/* eslint-disable @typescript-eslint/require-await -- the SDK takes async callbacks; these handlers only record */
/**
 * The real @dapr/dapr SDK, unchanged, with bindings over HTTP: DaprClient `binding.send` to an output binding of a
 * pluggable component (the example's outbox), DaprServer `binding.receive` of its input events and of
 * `bindings.cron`.
 */
import type { DaprClient } from '@dapr/dapr';
import { ExampleComponent, componentYaml, eventually, tempSocketsFolder } from '@svc/runtime/test-support';
import { startDaprSdkApp, type DaprSdkApp } from '../support/dapr-sdk-app.js';
import { expect } from 'chai';

describe('Dapr JS SDK bindings (DaprClient send, DaprServer receive) against svcd', function () {
  this.timeout(90_000);
  let app: DaprSdkApp;
  let client: DaprClient;
  let component: ExampleComponent;
  const outboxEvents: unknown[] = [];
  let ticks = 0;

  before(async () => {
    const folder = tempSocketsFolder();
    component = await ExampleComponent.start({ folder, name: 'memstore' });
    app = await startDaprSdkApp(
      async (server) => {
        await server.binding.receive('outbox', async (data: unknown) => void outboxEvents.push(data));
        await server.binding.receive('tick', async () => void ticks++);
      },
      {
        socketsFolder: folder,
        resources: {
          'outbox.yaml': componentYaml('outbox', 'bindings.memstore'),
          'tick.yaml': componentYaml('tick', 'bindings.cron', { schedule: '@every 1s' }),
        },
      },
    );
    client = app.client;
  });
  after(async () => {
    await app?.stop();
    await component?.stop();
  });

  it('sends to an output binding and gets its answer; the created entry arrives through the input binding', async () => {
    const res = (await client.binding.send('outbox', 'create', { order: 9 }, { contentType: 'application/json' })) as { id?: string };
    expect(res).to.have.property('id').that.is.a('string');
    await eventually('the outbox event reached DaprServer', () => Promise.resolve(outboxEvents.length >= 1));
    expect(outboxEvents[0]).to.deep.equal({ order: 9 });
  });

  it('receives bindings.cron firings', async () => {
    await eventually('two cron firings', () => Promise.resolve(ticks >= 2), 5000);
  });
});
