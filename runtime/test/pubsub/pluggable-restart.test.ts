/**
 * A pluggable pub/sub killed (SIGKILL) and started again on the same socket while the app publishes and receives:
 * svcd initialises it again and opens the subscription's stream again by itself; svcd is not restarted.
 */
import { expect } from 'chai';
import { ExampleComponent, SubscriberApp, SvcdProcess, componentYaml, tempSocketsFolder } from '../support/index.js';

describe('pluggable pub/sub: a component restart under traffic', function () {
  this.timeout(60_000);

  it('delivers what is published after the component came back, through a stream svcd opened again', async () => {
    const folder = tempSocketsFolder();
    let component = await ExampleComponent.start({ folder, name: 'bus' });
    const app = await SubscriberApp.start([{ pubsubname: 'events', topic: 'ticks', route: '/ticks' }]);
    const svcd = await SvcdProcess.start({ socketsFolder: folder, resources: { 'events.yaml': componentYaml('events', 'pubsub.bus') }, args: ['--app-port', String(app.port)] });
    const publish = (n: number) => svcd.request('POST', '/v1.0/publish/events/ticks', { n });
    try {
      for (let n = 0; n < 10; n++) expect((await publish(n)).status).to.equal(204);
      await app.waitFor('/ticks', 10);

      await component.kill();
      const down = await publish(100);
      expect(down.status, 'publishing while the component is down fails visibly').to.equal(500);
      expect(((await down.json()) as { errorCode: string }).errorCode).to.equal('ERR_COMPONENT_UNAVAILABLE');

      component = await ExampleComponent.start({ folder, name: 'bus' });
      // Publishing works as soon as svcd initialised the new process; keep publishing until it does.
      let n = 10;
      const deadline = Date.now() + 20_000;
      while (n < 20 && Date.now() < deadline) {
        if ((await publish(n)).status === 204) n++;
        else await new Promise((r) => setTimeout(r, 100));
      }
      expect(n).to.equal(20);
      await app.waitFor('/ticks', 20, 20_000);
      const seen = new Set(app.to('/ticks').map((d) => (d.body.data as { n: number }).n));
      for (let i = 10; i < 20; i++) expect(seen.has(i), `message ${i} published after the restart`).to.equal(true);
      expect(svcd.output).to.match(/pluggable component stream lost; opening it again/);
    } finally {
      await svcd.dispose();
      await app.stop();
      await component.stop();
    }
  });
});
