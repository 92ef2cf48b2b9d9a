import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { componentYaml, SvcdProcess } from '../support/index.js';
import { stateBackends } from './state-backends.js';
import { etagOf, expectError, expectStatus, getRaw } from './state-http.js';

for (const backend of stateBackends()) {
  describe(`state API over HTTP on ${backend.label}`, function () {
    this.timeout(60_000);
    const appId = `state-it-${randomBytes(4).toString('hex')}`;
    let svcd: SvcdProcess;
    const save = (items: unknown, method = 'POST', store = 'store') => svcd.request(method, `/v1.0/state/${store}`, items);

    before(async () => {
      const stores = [
        componentYaml('store', backend.type, backend.metadata),
        componentYaml('plain', backend.type, { ...backend.metadata, keyPrefix: 'none' }),
        componentYaml('shared', backend.type, { ...backend.metadata, keyPrefix: 'Shared' }),
        componentYaml('ns', backend.type, { ...backend.metadata, keyPrefix: 'namespace' }),
      ];
      svcd = await SvcdProcess.start({ appId, args: ['--max-request-size', '64Ki', '--namespace', 'it-ns'], resources: { 'stores.yaml': stores.join('---\n') } });
    });
    after(async () => {
      await svcd?.stop();
      await backend.cleanup([appId, `shared||${appId}`, `it-ns.${appId}`]);
    });

    it('saves with POST and PUT (204) and returns each value byte for byte, with ETag and a JSON content type', async () => {
      const body = '[{"key":"order-1","value": { "z" : 1.50, "a":[ 2e3, "é😀" ] } }, {"key":"order-2","value":"text"}]';
      await expectStatus(await save(body), 204);
      await expectStatus(await save('[{"key":"order-3","value":12345678901234567890}]', 'PUT'), 204);
      const res = await svcd.request('GET', '/v1.0/state/store/order-1');
      expect(await res.text()).to.equal('{ "z" : 1.50, "a":[ 2e3, "é😀" ] }');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.headers.get('etag')).to.match(/^\d+$/);
      expect(await getRaw(svcd, 'store', 'order-2')).to.equal('"text"');
      expect(await getRaw(svcd, 'store', 'order-3')).to.equal('12345678901234567890');
    });

    it('answers 204 with an empty body for a missing key, and for an empty save', async () => {
      expect(await expectStatus(await svcd.request('GET', '/v1.0/state/store/never-saved'), 204)).to.equal('');
      await expectStatus(await save([]), 204);
    });

    it('enforces ETags on save: current 204, stale 409, malformed 400, first-write on an existing key 409', async () => {
      await expectStatus(await save([{ key: 'e', value: 1 }]), 204);
      const etag = await etagOf(svcd, 'store', 'e');
      await expectStatus(await save([{ key: 'e', value: 2, etag }]), 204);
      const mismatch = await expectError(await save([{ key: 'e', value: 3, etag }]), 409, 'ERR_STATE_ETAG_MISMATCH');
      expect(mismatch.message).to.equal('failed saving state in state store store: possible etag mismatch for key e');
      await expectError(await save([{ key: 'e', value: 3, etag: 'abc' }]), 400, 'ERR_STATE_ETAG_INVALID');
      await expectError(await save([{ key: 'e', value: 3, options: { concurrency: 'first-write' } }]), 409, 'ERR_STATE_ETAG_MISMATCH');
      await expectError(await save([{ key: 'e', value: 3, options: { concurrency: 'sometimes' } }]), 400, 'ERR_MALFORMED_REQUEST');
      expect(await getRaw(svcd, 'store', 'e')).to.equal('2');
    });

    it('saves several items atomically: one stale etag rejects them all (409)', async () => {
      await expectStatus(await save([{ key: 'm1', value: 1 }]), 204);
      const stale = await etagOf(svcd, 'store', 'm1');
      await expectStatus(await save([{ key: 'm1', value: 2 }]), 204);
      await expectError(await save([{ key: 'm-new', value: 1 }, { key: 'm1', value: 3, etag: stale }]), 409, 'ERR_STATE_ETAG_MISMATCH');
      expect([await getRaw(svcd, 'store', 'm-new'), await getRaw(svcd, 'store', 'm1')]).to.deep.equal([undefined, '2']);
    });

    it('deletes (204), honouring If-Match: wrong 409, malformed 400, current 204', async () => {
      await expectStatus(await save([{ key: 'd', value: 'x' }]), 204);
      const etag = await etagOf(svcd, 'store', 'd');
      await expectError(await svcd.request('DELETE', '/v1.0/state/store/d', undefined, { 'If-Match': String(Number(etag) + 1) }), 409, 'ERR_STATE_ETAG_MISMATCH');
      await expectError(await svcd.request('DELETE', '/v1.0/state/store/d', undefined, { 'If-Match': 'W/"x"' }), 400, 'ERR_STATE_ETAG_INVALID');
      expect(await getRaw(svcd, 'store', 'd')).to.equal('"x"');
      await expectStatus(await svcd.request('DELETE', '/v1.0/state/store/d', undefined, { 'If-Match': etag }), 204);
      expect(await getRaw(svcd, 'store', 'd')).to.equal(undefined);
      await expectStatus(await svcd.request('DELETE', '/v1.0/state/store/never-saved?concurrency=last-write&consistency=strong'), 204);
      await expectError(await svcd.request('DELETE', '/v1.0/state/store/d?concurrency=whatever'), 400, 'ERR_MALFORMED_REQUEST');
    });

    it('bulk get returns data, etags and missing keys in request order (POST and PUT)', async () => {
      await expectStatus(await save('[{"key":"b1","value":{"n": 1}},{"key":"b2","value":[true]}]'), 204);
      const etag = await etagOf(svcd, 'store', 'b1');
      for (const method of ['POST', 'PUT']) {
        const res = await svcd.request(method, '/v1.0/state/store/bulk', { keys: ['b2', 'nope', 'b1'], parallelism: 4 });
        const text = await expectStatus(res, 200);
        expect(text).to.equal(`[{"key":"b2","data":[true],"etag":"1"},{"key":"nope"},{"key":"b1","data":{"n": 1},"etag":"${etag}"}]`);
      }
      expect(await expectStatus(await svcd.request('POST', '/v1.0/state/store/bulk', { keys: [] }), 200)).to.equal('[]');
    });

    it('runs a transaction atomically (204), or not at all on a stale etag (409)', async () => {
      await expectStatus(await save([{ key: 't-old', value: 'old' }, { key: 't-guard', value: 1 }]), 204);
      const stale = await etagOf(svcd, 'store', 't-guard');
      await expectStatus(await save([{ key: 't-guard', value: 2 }]), 204);
      const failing = {
        operations: [
          { operation: 'upsert', request: { key: 't-new', value: { a: 1 } } },
          { operation: 'delete', request: { key: 't-old' } },
          { operation: 'upsert', request: { key: 't-guard', value: 3, etag: stale } },
        ],
      };
      await expectError(await svcd.request('POST', '/v1.0/state/store/transaction', failing), 409, 'ERR_STATE_ETAG_MISMATCH');
      expect([await getRaw(svcd, 'store', 't-new'), await getRaw(svcd, 'store', 't-old'), await getRaw(svcd, 'store', 't-guard')]).to.deep.equal([undefined, '"old"', '2']);

      const body = '{"operations":[{"operation":"upsert","request":{"key":"t-new","value": {"a" : 1}}},{"operation":"delete","request":{"key":"t-old"}}],"metadata":{"m":"v"}}';
      await expectStatus(await svcd.request('PUT', '/v1.0/state/store/transaction', body), 204);
      expect([await getRaw(svcd, 'store', 't-new'), await getRaw(svcd, 'store', 't-old')]).to.deep.equal(['{"a" : 1}', undefined]);
      await expectStatus(await svcd.request('POST', '/v1.0/state/store/transaction', { operations: [] }), 204);
    });

    it('rejects an unknown transaction operation (400) without applying the others', async () => {
      const body = { operations: [{ operation: 'upsert', request: { key: 'u1', value: 1 } }, { operation: 'merge', request: { key: 'u2', value: 1 } }] };
      await expectError(await svcd.request('POST', '/v1.0/state/store/transaction', body), 400, 'ERR_NOT_SUPPORTED_STATE_OPERATION');
      expect(await getRaw(svcd, 'store', 'u1')).to.equal(undefined);
    });

    it('prefixes keys with the app id, or as the keyPrefix metadata says', async () => {
      await expectStatus(await save([{ key: 'pk', value: 'app' }]), 204);
      await expectStatus(await save([{ key: `${appId}-pk`, value: 'none' }], 'POST', 'plain'), 204);
      await expectStatus(await save([{ key: `${appId}-pk`, value: 'custom' }], 'POST', 'shared'), 204);
      expect((await backend.peek(svcd.dataDir, `${appId}||pk`))?.toString()).to.equal('"app"');
      expect((await backend.peek(svcd.dataDir, `${appId}-pk`))?.toString()).to.equal('"none"');
      expect((await backend.peek(svcd.dataDir, `shared||${appId}-pk`))?.toString()).to.equal('"custom"');
      await expectStatus(await save([{ key: 'pk', value: 'namespaced' }], 'POST', 'ns'), 204);
      expect((await backend.peek(svcd.dataDir, `it-ns.${appId}||pk`))?.toString()).to.equal('"namespaced"');
      // The same data seen through differently prefixed stores.
      expect(await getRaw(svcd, 'plain', 'pk')).to.equal(undefined);
      const bulk = await svcd.request('POST', '/v1.0/state/shared/bulk', { keys: [`${appId}-pk`] });
      expect(JSON.parse(await expectStatus(bulk, 200))).to.deep.equal([{ key: `${appId}-pk`, data: 'custom', etag: '1' }]);
    });

    it('answers 400 ERR_STATE_STORE_NOT_FOUND for an unknown store on every route', async () => {
      await expectError(await save([{ key: 'a', value: 1 }], 'POST', 'nope'), 400, 'ERR_STATE_STORE_NOT_FOUND');
      await expectError(await svcd.request('GET', '/v1.0/state/nope/a'), 400, 'ERR_STATE_STORE_NOT_FOUND');
      await expectError(await svcd.request('DELETE', '/v1.0/state/nope/a'), 400, 'ERR_STATE_STORE_NOT_FOUND');
      await expectError(await svcd.request('POST', '/v1.0/state/nope/bulk', { keys: ['a'] }), 400, 'ERR_STATE_STORE_NOT_FOUND');
      await expectError(await svcd.request('POST', '/v1.0/state/nope/transaction', { operations: [] }), 400, 'ERR_STATE_STORE_NOT_FOUND');
    });

    it('answers 413 for a body over --max-request-size and stores nothing', async () => {
      const big = JSON.stringify([{ key: 'big', value: 'x'.repeat(70 * 1024) }]);
      await expectError(await save(big), 413, 'ERR_BODY_TOO_LARGE');
      expect(await getRaw(svcd, 'store', 'big')).to.equal(undefined);
    });

    it('rejects keys with || and malformed bodies (400)', async () => {
      const illegal = await expectError(await save([{ key: 'a||b', value: 1 }]), 400, 'ERR_MALFORMED_REQUEST');
      expect(illegal.message).to.include("can't contain '||'");
      await expectError(await svcd.request('GET', `/v1.0/state/store/${encodeURIComponent('a||b')}`), 400, 'ERR_MALFORMED_REQUEST');
      await expectError(await save('[{"key":"a","value":'), 400, 'ERR_MALFORMED_REQUEST');
      await expectError(await save([{ value: 1 }]), 400, 'ERR_MALFORMED_REQUEST');
    });

    it('accepts metadata.* query parameters and validates consistency', async () => {
      await expectStatus(await svcd.request('POST', '/v1.0/state/store?metadata.partitionKey=p', [{ key: 'md', value: 1, metadata: { a: 'b' } }]), 204);
      expect(await expectStatus(await svcd.request('GET', '/v1.0/state/store/md?metadata.partitionKey=p&consistency=strong'), 200)).to.equal('1');
      await expectError(await svcd.request('GET', '/v1.0/state/store/md?consistency=linearizable'), 400, 'ERR_MALFORMED_REQUEST');
    });

    it('expires values saved with ttlInSeconds (request or item metadata), says when, and refuses a bad ttl whole', async () => {
      await expectStatus(await svcd.request('POST', '/v1.0/state/store?metadata.ttlInSeconds=1', [{ key: 'ttl-a', value: 1 }]), 204);
      await expectStatus(await save([{ key: 'ttl-b', value: 2, metadata: { ttlInSeconds: '1' } }, { key: 'ttl-keep', value: 3 }]), 204);
      const got = await svcd.request('GET', '/v1.0/state/store/ttl-a');
      expect(got.status).to.equal(200);
      if (backend.label !== 'Redis') expect(Date.parse(got.headers.get('metadata.ttlExpireTime')!)).to.be.greaterThan(Date.now());
      await new Promise((r) => setTimeout(r, 1300));
      expect(await getRaw(svcd, 'store', 'ttl-a')).to.equal(undefined);
      expect(await getRaw(svcd, 'store', 'ttl-b')).to.equal(undefined);
      expect(await getRaw(svcd, 'store', 'ttl-keep')).to.equal('3');
      for (const bad of ['0', '1.5', 'soon', '-2']) {
        await expectError(await save([{ key: 'ok', value: 1 }, { key: 'ttl-bad', value: 1, metadata: { ttlInSeconds: bad } }]), 400, 'ERR_MALFORMED_REQUEST');
      }
      expect(await getRaw(svcd, 'store', 'ok'), 'nothing of a refused request is written').to.equal(undefined);
    });

    describe('when the store itself fails', () => {
      before(() => backend.sabotage(svcd.dataDir, [`${appId}||broken`]));

      it('answers 500 with a code per operation', async () => {
        await expectError(await svcd.request('GET', '/v1.0/state/store/broken'), 500, 'ERR_STATE_GET');
        await expectError(await save([{ key: 'broken', value: 1 }]), 500, 'ERR_STATE_SAVE');
        await expectError(await svcd.request('DELETE', '/v1.0/state/store/broken'), 500, 'ERR_STATE_DELETE');
        await expectError(await svcd.request('POST', '/v1.0/state/store/bulk', { keys: ['broken'] }), 500, 'ERR_STATE_BULK_GET');
        const tx = { operations: [{ operation: 'upsert', request: { key: 'broken', value: 1 } }] };
        await expectError(await svcd.request('POST', '/v1.0/state/store/transaction', tx), 500, 'ERR_STATE_TRANSACTION');
        expect((await svcd.request('GET', '/v1.0/healthz')).status).to.equal(204);
      });
    });
  });
}

describe('state API without state stores', function () {
  this.timeout(30_000);

  it('answers 500 ERR_STATE_STORE_NOT_CONFIGURED', async () => {
    const svcd = await SvcdProcess.start();
    try {
      await expectError(await svcd.request('GET', '/v1.0/state/any/key'), 500, 'ERR_STATE_STORE_NOT_CONFIGURED');
      await expectError(await svcd.request('POST', '/v1.0/state/any', []), 500, 'ERR_STATE_STORE_NOT_CONFIGURED');
    } finally {
      await svcd.stop();
    }
  });
});
