import { expect } from 'chai';
import { SvcdProcess, componentYaml } from '../support/index.js';

/** SQLite is single-host: a second svcd on the same data must be refused, never share the file. */
describe('state.sqlite is single-host', function () {
  this.timeout(60_000);
  const resources = { 'store.yaml': componentYaml('statestore', 'state.sqlite', { actorStateStore: 'true' }) };

  it('refuses a second svcd on the same data with a clear error; the first keeps working; a restart after kill -9 opens it at once', async () => {
    const first = await SvcdProcess.start({ appId: 'single', resources });
    let restarted: SvcdProcess | undefined;
    try {
      expect((await first.request('POST', '/v1.0/state/statestore', [{ key: 'k', value: 'kept' }])).status).to.equal(204);
      const second = await SvcdProcess.start({ appId: 'single', resourcesPath: first.resourcesPath, dataDir: first.dataDir, waitReady: false });
      const exit = await second.exited;
      expect(exit.code).to.equal(1);
      expect(second.output).to.contain('ERR_STATE_STORE_LOCKED').and.to.contain('in use by another process').and.to.contain('statestore.db');
      // The first svcd never noticed.
      expect(await (await first.request('GET', '/v1.0/state/statestore/k')).text()).to.equal('"kept"');
      expect((await first.request('POST', '/v1.0/state/statestore', [{ key: 'k2', value: 'later' }])).status).to.equal(204);

      await first.kill();
      restarted = await SvcdProcess.start({ appId: 'single', resourcesPath: first.resourcesPath, dataDir: first.dataDir, readyTimeoutMs: 10_000 });
      expect(await (await restarted.request('GET', '/v1.0/state/statestore/k2')).text()).to.equal('"later"');
      const meta = (await (await restarted.request('GET', '/v1.0/metadata')).json()) as { actorRuntime: { placement: string } };
      expect(meta.actorRuntime.placement).to.equal('single-host');
    } finally {
      await restarted?.dispose();
      await first.dispose();
    }
  });
});
