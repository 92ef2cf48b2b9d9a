/**
 * Bad input, table-driven: every request gets its documented status and error code, and the store's contents
 * (values and etags, read through the API) are the same afterwards. Then odd but valid input round-trips.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { componentYaml, SvcdProcess } from '../support/index.js';
import { stateBackends } from './state-backends.js';
import { etagOf, expectError, expectStatus, getRaw } from './state-http.js';

interface BadRequest {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly body?: string | Buffer;
  readonly headers?: Record<string, string>;
  readonly status: number;
  /** Absent for requests that are valid but change nothing (empty arrays). */
  readonly code?: string;
}

const LIMIT = 64 * 1024;
const SAVE = '/v1.0/state/store';
const BULK = '/v1.0/state/store/bulk';
const TX = '/v1.0/state/store/transaction';
/** Keys the table's requests would write if a request were half applied; all are watched by the snapshot. */
const WATCHED = ['seed-1', 'seed-2', 'seed-3', 'new-1', 'new-2'];
const change = '{"key":"seed-1","value":"changed"}';
const upsertNew = '{"operation":"upsert","request":{"key":"new-1","value":1}}';

function badRequests(staleEtag: string): BadRequest[] {
  const save = (name: string, body: string | Buffer, status: number, code?: string): BadRequest => ({ name, method: 'POST', path: SAVE, body, status, code });
  const tx = (name: string, body: string, status: number, code: string): BadRequest => ({ name, method: 'POST', path: TX, body, status, code });
  const bulk = (name: string, body: string, status: number, code: string): BadRequest => ({ name, method: 'POST', path: BULK, body, status, code });
  const M = 'ERR_MALFORMED_REQUEST';
  return [
    save('broken JSON', '[{"key":"seed-1","value":', 400, M),
    save('trailing garbage', `[${change}] x`, 400, M),
    save('empty body', '', 400, M),
    save('invalid UTF-8', Buffer.concat([Buffer.from('[{"key":"seed-1","value":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}]')]), 400, M),
    save('an object instead of an array', change, 400, M),
    save('null instead of an array', 'null', 400, M),
    save('an array of numbers', '[1,2]', 400, M),
    save('a numeric key', '[{"key":1,"value":1}]', 400, M),
    save('a missing key', `[${change},{"value":1}]`, 400, M),
    save('an empty key', `[${change},{"key":"","value":1}]`, 400, M),
    save('a missing value', `[${change},{"key":"new-1"}]`, 400, M),
    save('a null value', `[${change},{"key":"new-1","value":null}]`, 400, M),
    save('a numeric etag', `[${change},{"key":"new-1","value":1,"etag":7}]`, 400, M),
    save('metadata that is not strings', `[${change},{"key":"new-1","value":1,"metadata":{"ttl":60}}]`, 400, M),
    save('options that are not an object', `[${change},{"key":"new-1","value":1,"options":"strong"}]`, 400, M),
    save('an unknown concurrency', `[${change},{"key":"new-1","value":1,"options":{"concurrency":"most-write"}}]`, 400, M),
    save('a key with ||', `[${change},{"key":"a||b","value":1}]`, 400, M),
    save('a key with NUL', `[${change},{"key":"a\\u0000b","value":1}]`, 400, M),
    save('a malformed etag in a later item', `[${change},{"key":"seed-2","value":1,"etag":"bogus"}]`, 400, 'ERR_STATE_ETAG_INVALID'),
    save('a stale etag in a later item', `[${change},{"key":"seed-2","value":1,"etag":"${staleEtag}"}]`, 409, 'ERR_STATE_ETAG_MISMATCH'),
    save('first-write over an existing key', `[${change},{"key":"seed-2","value":1,"options":{"concurrency":"first-write"}}]`, 409, 'ERR_STATE_ETAG_MISMATCH'),
    save('a body over the size limit', `[{"key":"seed-1","value":"${'x'.repeat(LIMIT)}"}]`, 413, 'ERR_BODY_TOO_LARGE'),
    save('deep nesting left open', `[{"key":"seed-1","value":${'['.repeat(20_000)}}]`, 400, M),
    save('an empty array', '[]', 204),
    { name: 'an unknown store', method: 'POST', path: '/v1.0/state/nostore', body: `[${change}]`, status: 400, code: 'ERR_STATE_STORE_NOT_FOUND' },
    { name: 'a wrong method', method: 'PATCH', path: SAVE, body: `[${change}]`, status: 405, code: 'ERR_METHOD_NOT_ALLOWED' },
    { name: 'get of a key with ||', method: 'GET', path: `${SAVE}/${encodeURIComponent('a||b')}`, status: 400, code: M },
    { name: 'delete of a key with ||', method: 'DELETE', path: `${SAVE}/${encodeURIComponent('a||b')}`, status: 400, code: M },
    { name: 'delete with a malformed If-Match', method: 'DELETE', path: `${SAVE}/seed-1`, headers: { 'If-Match': 'bogus' }, status: 400, code: 'ERR_STATE_ETAG_INVALID' },
    { name: 'delete with a stale If-Match', method: 'DELETE', path: `${SAVE}/seed-2`, headers: { 'If-Match': staleEtag }, status: 409, code: 'ERR_STATE_ETAG_MISMATCH' },
    { name: 'delete with an unknown concurrency', method: 'DELETE', path: `${SAVE}/seed-1?concurrency=never`, status: 400, code: M },
    bulk('bulk with keys as a string', '{"keys":"seed-1"}', 400, M),
    bulk('bulk with a numeric key', '{"keys":["seed-1",2]}', 400, M),
    bulk('bulk with a key with ||', '{"keys":["seed-1","a||b"]}', 400, M),
    bulk('bulk with broken JSON', '{"keys":[', 400, M),
    tx('a transaction with an unknown operation', `{"operations":[${upsertNew},{"operation":"merge","request":{"key":"new-2","value":1}}]}`, 400, 'ERR_NOT_SUPPORTED_STATE_OPERATION'),
    tx('a transaction without an operation name', `{"operations":[${upsertNew},{"request":{"key":"new-2","value":1}}]}`, 400, M),
    tx('a transaction without a request', `{"operations":[${upsertNew},{"operation":"delete"}]}`, 400, M),
    tx('a transaction upsert without a value', `{"operations":[${upsertNew},{"operation":"upsert","request":{"key":"new-2"}}]}`, 400, M),
    tx('a transaction with a key with ||', `{"operations":[${upsertNew},{"operation":"delete","request":{"key":"x||y"}}]}`, 400, M),
    tx('a transaction with a malformed etag', `{"operations":[${upsertNew},{"operation":"delete","request":{"key":"seed-1","etag":"bogus"}}]}`, 400, 'ERR_STATE_ETAG_INVALID'),
    tx('a transaction with a stale etag', `{"operations":[${upsertNew},{"operation":"delete","request":{"key":"seed-2","etag":"${staleEtag}"}}]}`, 409, 'ERR_STATE_ETAG_MISMATCH'),
    tx('a transaction with operations as an object', `{"operations":${upsertNew}}`, 400, M),
    { name: 'an empty transaction', method: 'POST', path: TX, body: '{"operations":[]}', status: 204 },
    { name: 'an empty bulk get', method: 'POST', path: BULK, body: '{"keys":[]}', status: 200 },
  ];
}

for (const backend of stateBackends()) {
  describe(`state API bad input on ${backend.label}`, function () {
    this.timeout(60_000);
    const appId = `state-bad-${randomBytes(4).toString('hex')}`;
    let svcd: SvcdProcess;
    let staleEtag = '';

    const snapshot = async () => expectStatus(await svcd.request('POST', BULK, { keys: WATCHED }), 200);

    before(async () => {
      svcd = await SvcdProcess.start({ appId, args: ['--max-request-size', String(LIMIT)], resources: { 'store.yaml': componentYaml('store', backend.type, backend.metadata) } });
      await expectStatus(await svcd.request('POST', SAVE, '[{"key":"seed-1","value":{"n":1}},{"key":"seed-2","value":"two"},{"key":"seed-3","value":[3]}]'), 204);
      staleEtag = await etagOf(svcd, 'store', 'seed-2');
      await expectStatus(await svcd.request('POST', SAVE, '[{"key":"seed-2","value":"two, again"}]'), 204);
    });
    after(async () => {
      await svcd?.stop();
      await backend.cleanup([appId]);
    });

    it('answers every bad request with its documented error and changes nothing', async () => {
      const before = await snapshot();
      for (const bad of badRequests(staleEtag)) {
        const res = await svcd.request(bad.method, bad.path, bad.body, bad.headers);
        if (bad.code) await expectError(res, bad.status, bad.code).catch((err: Error) => expect.fail(`${bad.name}: ${err.message}`));
        else expect(res.status, bad.name).to.equal(bad.status);
        expect(await snapshot(), `store contents after ${bad.name}`).to.equal(before);
      }
      expect(await getRaw(svcd, 'store', 'seed-1')).to.equal('{"n":1}');
    });

    it('refuses a streamed (chunked) body over the limit with 413 and changes nothing', async () => {
      const before = await snapshot();
      const chunk = new TextEncoder().encode(`[${change},${' '.repeat(16 * 1024)}`);
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ < 8) controller.enqueue(chunk);
          else controller.close();
        },
      });
      const res = await fetch(`${svcd.httpUrl}${SAVE}`, { method: 'POST', body: stream, duplex: 'half' });
      await expectError(res, 413, 'ERR_BODY_TOO_LARGE');
      expect(await snapshot()).to.equal(before);
    });

    it('round-trips odd but valid keys and values', async () => {
      const keys = ['ключ', '🔑 emoji', 'with spaces', 'slash/inside', 'percent%20sign', 'q?uery#hash', 'a|b', 'x'.repeat(1000)];
      const values = ['"ünïcödé 😀"', '"\\ud83d\\ude00 escaped"', '{ "spaced" : [ 1 , 2 ] }', '-0.0e+0', 'false', `${'['.repeat(5000)}${']'.repeat(5000)}`];
      for (const [i, key] of keys.entries()) {
        const value = values[i % values.length]!;
        await expectStatus(await svcd.request('POST', SAVE, `[{"key":${JSON.stringify(key)},"value":${value}}]`), 204);
        expect(await getRaw(svcd, 'store', key), key).to.equal(value);
      }
      const bulk = JSON.parse(await expectStatus(await svcd.request('POST', BULK, { keys }), 200)) as { key: string }[];
      expect(bulk.map((b) => b.key)).to.deep.equal(keys);
    });
  });
}
