import { expect } from 'chai';
import { componentYaml, SvcdProcess } from '../support/index.js';
import { expectStatus, getRaw } from './state-http.js';

describe('SQLite state survives kill -9', function () {
  this.timeout(60_000);

  it('keeps every acknowledged save, delete and transaction after SIGKILL and a restart', async () => {
    const first = await SvcdProcess.start({ appId: 'restart-app', resources: { 'statestore.yaml': componentYaml('statestore', 'state.sqlite') } });
    let second: SvcdProcess | undefined;
    try {
      await expectStatus(await first.request('POST', '/v1.0/state/statestore', '[{"key":"kept","value": {"exact" : "bytes"} },{"key":"removed","value":1}]'), 204);
      await expectStatus(await first.request('DELETE', '/v1.0/state/statestore/removed'), 204);
      const tx = { operations: [{ operation: 'upsert', request: { key: 'tx-1', value: 'one' } }, { operation: 'upsert', request: { key: 'tx-2', value: 'two' } }] };
      await expectStatus(await first.request('POST', '/v1.0/state/statestore/transaction', tx), 204);
      // Many concurrent writes, each acknowledged before the kill.
      const burst = Array.from({ length: 100 }, (_, i) => first.request('POST', '/v1.0/state/statestore', [{ key: `burst-${i}`, value: i }]));
      for (const res of await Promise.all(burst)) await expectStatus(res, 204);
      const etag = (await first.request('GET', '/v1.0/state/statestore/kept')).headers.get('etag');

      await first.kill();
      expect((await first.exited).signal).to.equal('SIGKILL');

      second = await SvcdProcess.start({ appId: 'restart-app', resourcesPath: first.resourcesPath, dataDir: first.dataDir });
      const kept = await second.request('GET', '/v1.0/state/statestore/kept');
      expect(await kept.text()).to.equal('{"exact" : "bytes"}');
      expect(kept.headers.get('etag')).to.equal(etag);
      expect(await getRaw(second, 'statestore', 'removed')).to.equal(undefined);
      expect([await getRaw(second, 'statestore', 'tx-1'), await getRaw(second, 'statestore', 'tx-2')]).to.deep.equal(['"one"', '"two"']);
      const keys = Array.from({ length: 100 }, (_, i) => `burst-${i}`);
      const bulk = JSON.parse(await expectStatus(await second.request('POST', '/v1.0/state/statestore/bulk', { keys }), 200)) as { key: string; data: number }[];
      expect(bulk.map((b) => b.data)).to.deep.equal(keys.map((_, i) => i));
    } finally {
      await first.kill();
      await second?.stop();
    }
  });
});
