/**
 * Standalone name resolution through the store the sidecars already share: with a Redis or PostgreSQL actor store
 * and no Configuration, svcd registers there (as several hosts would), finds the others there and keeps the shared
 * secret there. And three apps in a chain, each behind its own svcd: the last one learns who called it.
 */
import { actorStore, SvcdProcess, withTestPostgres, withTestRedis, type ActorStore } from '@svc/runtime/test-support';
import { expect } from 'chai';
import { EchoApp, type SeenRequest } from '../support/echo-app.js';

for (const kind of ['redis', 'postgresql'] as const) {
  describe(`service invocation resolved through the ${kind} actor store (no Configuration), three apps in a chain`, function () {
    this.timeout(120_000);
    const apps = [new EchoApp(), new EchoApp(), new EchoApp()];
    const stores: ActorStore[] = [];
    const sidecars: SvcdProcess[] = [];

    before(async () => {
      for (const app of apps) {
        await app.start();
        const store = actorStore(kind, `chain-${kind}`);
        stores.push(store);
        const svcd = await SvcdProcess.start({ appId: store.appId, resources: store.resources, args: ['--app-port', String(app.port)] });
        app.sidecarPort = svcd.ports.http;
        sidecars.push(svcd);
      }
    });
    after(async () => {
      await Promise.all(sidecars.map((s) => s.dispose()));
      await Promise.all(apps.map((a) => a.stop()));
      await Promise.all(stores.map((s) => s.cleanup()));
    });

    it(`registers in ${kind} and finds the others there`, async () => {
      const metadata = (await (await fetch(`${sidecars[0]!.httpUrl}/v1.0/metadata`)).json()) as { invocation: { nameResolution: string } };
      expect(metadata.invocation.nameResolution).to.equal(kind);
      const seen = (await (await fetch(`${sidecars[0]!.httpUrl}/v1.0/invoke/${stores[1]!.appId}/method/direct`)).json()) as SeenRequest;
      expect(seen.headers['dapr-caller-app-id']).to.equal(stores[0]!.appId);
    });

    it('relays A → B → C: each hop through both sidecars, C sees B as its caller', async () => {
      const res = await fetch(`${sidecars[0]!.httpUrl}/v1.0/invoke/${stores[1]!.appId}/method/relay/${stores[2]!.appId}/end`);
      expect(res.status).to.equal(200);
      const seen = (await res.json()) as SeenRequest;
      expect(seen.url).to.equal('/end');
      expect(seen.headers['dapr-caller-app-id']).to.equal(stores[1]!.appId);
      expect(apps[2]!.seen.some((s) => s.url === '/end')).to.equal(true);
    });

    it(`keeps the shared invocation secret in ${kind}`, async () => {
      if (kind === 'redis') expect(await withTestRedis((redis) => redis.get('svc-name-registry||secret'))).to.be.a('string').with.length.above(20);
      else expect((await withTestPostgres((client) => client.query('SELECT value FROM svc_name_registry_secret'))).rows).to.have.length(1);
    });
  });
}
