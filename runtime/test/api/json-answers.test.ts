import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { componentYaml, SvcdProcess } from '../support/index.js';

/**
 * svcd's JSON answers are serialized by svcd, never handed to koa as objects: koa tests an object body against
 * the fetch API's `Response`, and that global's first use loads Node's fetch implementation (undici), which cost
 * svcd's first JSON answer 36–70 ms and 5–8 MiB of RSS. A probe loaded into svcd with `--require` writes, as svcd
 * exits, which of Node's own modules it loaded.
 */
describe('JSON answers over HTTP', function () {
  this.timeout(60_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'json-answers-'));
  const probe = path.join(dir, 'probe.cjs');
  const loaded = path.join(dir, 'loaded.json');
  writeFileSync(probe, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(loaded)}, JSON.stringify(process.moduleLoadList)));\n`);
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("answer JSON with its type on every kind of route, errors included, without loading Node's fetch implementation", async () => {
    const resources = { 'store.yaml': componentYaml('store', 'state.in-memory', { actorStateStore: 'true' }) };
    const svcd = await SvcdProcess.start({ resources, env: { NODE_OPTIONS: `--require ${probe}` } });
    try {
      const answers = [
        await svcd.request('GET', '/v1.0/metadata'),
        await svcd.request('POST', '/v1.0/workflows/svc/wf/start?instanceID=json-1', '"in"'),
        await svcd.request('GET', '/v1.0/workflows/svc/json-1'),
        await svcd.request('GET', '/v1.0/workflows/svc?pageSize=5'),
        await svcd.request('GET', '/v1.0/workflows/svc/json-1/history'),
        await svcd.request('GET', '/v1.0/workflows/svc/json-1/waiting'),
        await svcd.request('POST', '/v1.0/state/store/bulk', { keys: ['a'] }),
        await svcd.request('GET', '/v1.0/no-such-route'),
        await svcd.request('GET', '/v1.0/workflows/svc/no-such-instance'),
      ];
      const seen = await Promise.all(answers.map(async (res) => [res.status, res.headers.get('content-type'), typeof (await res.json())]));
      expect(seen).to.deep.equal([
        [200, 'application/json; charset=utf-8', 'object'],
        [202, 'application/json; charset=utf-8', 'object'],
        [200, 'application/json; charset=utf-8', 'object'],
        [200, 'application/json; charset=utf-8', 'object'],
        [200, 'application/json; charset=utf-8', 'object'],
        [200, 'application/json; charset=utf-8', 'object'],
        [200, 'application/json; charset=utf-8', 'object'],
        [404, 'application/json; charset=utf-8', 'object'],
        [404, 'application/json; charset=utf-8', 'object'],
      ]);
    } finally {
      await svcd.stop();
      await svcd.dispose();
    }
    const modules = JSON.parse(readFileSync(loaded, 'utf8')) as string[];
    expect(modules.length, 'the probe ran').to.be.above(10);
    expect(modules.filter((m) => m.includes('undici'))).to.deep.equal([]);
  });
});
