import { expect } from 'chai';
import { decodeBulkGetBody, decodeSaveBody, decodeTransactionBody } from '../../src/api/http/state-body.js';
import { expectMalformed } from '../support/expect-runtime-error.js';

const body = (s: string) => Buffer.from(s, 'utf8');

describe('state request bodies', () => {
  it('decodes save items with raw values and optional fields', () => {
    const items = decodeSaveBody(body('[{"key":"a","value": {"z":1, "a":2} ,"etag":"3","metadata":{"m":"v"},"options":{"concurrency":"first-write"}},{"Key":"b","Value":"x"}]'));
    expect(items).to.have.length(2);
    expect(items[0]!.value!.toString()).to.equal('{"z":1, "a":2}');
    expect(items[0]).to.deep.include({ key: 'a', etag: '3', metadata: { m: 'v' }, options: { concurrency: 'first-write', consistency: undefined } });
    expect(items[1]).to.deep.include({ key: 'b' });
    expect(items[1]!.value!.toString()).to.equal('"x"');
  });

  it('keeps a metadata entry named __proto__ as data', () => {
    const [item] = decodeSaveBody(body('[{"key":"a","value":1,"metadata":{"__proto__":"x","y":"z"}}]'));
    expect(Object.entries(item!.metadata!)).to.deep.equal([['__proto__', 'x'], ['y', 'z']]);
    expect(Object.getPrototypeOf(item!.metadata)).to.equal(Object.prototype);
  });

  it('leaves a missing value and key for the API to reject', () => {
    const [item] = decodeSaveBody(body('[{"value":null}]'));
    expect(item).to.deep.include({ key: '', value: undefined });
  });

  it('rejects bodies of the wrong shape with the field path', () => {
    expectMalformed(() => decodeSaveBody(body('{"key":"a"}')), /body must be a JSON array/);
    expectMalformed(() => decodeSaveBody(body('[1]')), /\[0\] must be an object/);
    expectMalformed(() => decodeSaveBody(body('[{"key":5,"value":1}]')), /\[0\]\.key must be a string/);
    expectMalformed(() => decodeSaveBody(body('[{"key":"a","value":1,"etag":7}]')), /\[0\]\.etag must be a string/);
    expectMalformed(() => decodeSaveBody(body('[{"key":"a","value":1,"metadata":{"m":1}}]')), /\[0\]\.metadata\.m must be a string/);
    expectMalformed(() => decodeSaveBody(body('[{"key":"a","value":1,"options":"strong"}]')), /\[0\]\.options must be a JSON object/);
    expectMalformed(() => decodeSaveBody(body('[{"key":"a",')), /failed deserializing HTTP body/);
    expectMalformed(() => decodeSaveBody(Buffer.from([0x5b, 0xff, 0x5d])), /not valid UTF-8/);
  });

  it('decodes bulk get bodies', () => {
    expect(decodeBulkGetBody(body('{"keys":["a","b"],"parallelism":10,"metadata":{"x":"y"}}'))).to.deep.equal({ keys: ['a', 'b'], metadata: { x: 'y' } });
    expect(decodeBulkGetBody(body('{}'))).to.deep.equal({ keys: [], metadata: {} });
    expectMalformed(() => decodeBulkGetBody(body('{"keys":"a"}')), /keys must be a JSON array/);
    expectMalformed(() => decodeBulkGetBody(body('{"keys":[1]}')), /keys\[0\] must be a string/);
  });

  it('decodes transactions with raw values', () => {
    const tx = decodeTransactionBody(
      body('{"operations":[{"operation":"upsert","request":{"key":"a","value":[1, 2]}},{"operation":"delete","request":{"key":"b","etag":"1"}}],"metadata":{"p":"q"}}'),
    );
    expect(tx.metadata).to.deep.equal({ p: 'q' });
    expect(tx.operations.map((o) => o.operation)).to.deep.equal(['upsert', 'delete']);
    expect(tx.operations[0]!.request.value!.toString()).to.equal('[1, 2]');
    expect(tx.operations[1]!.request).to.deep.include({ key: 'b', etag: '1', value: undefined });
    expectMalformed(() => decodeTransactionBody(body('{"operations":[{"request":{"key":"a"}}]}')), /operations\[0\]\.operation is required/);
    expectMalformed(() => decodeTransactionBody(body('{"operations":[{"operation":"upsert"}]}')), /operations\[0\]\.request is required/);
    expectMalformed(() => decodeTransactionBody(body('[]')), /body must be a JSON object/);
  });
});
