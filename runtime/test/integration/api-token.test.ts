import { expect } from 'chai';
import { componentYaml, SvcdProcess } from '../support/index.js';
import { expectError, expectStatus } from './state-http.js';

describe('API token', function () {
  this.timeout(30_000);
  const token = 'test-token-0123456789';
  let svcd: SvcdProcess;

  before(async () => {
    svcd = await SvcdProcess.start({ env: { SVC_API_TOKEN: token }, resources: { 'store.yaml': componentYaml('store', 'state.in-memory') } });
  });
  after(() => svcd?.stop());

  it('answers 401 without the token, or with a wrong one, on every API but health', async () => {
    await expectError(await svcd.request('GET', '/v1.0/state/store/k'), 401, 'ERR_UNAUTHORIZED');
    await expectError(await svcd.request('POST', '/v1.0/state/store', [{ key: 'k', value: 1 }], { 'svc-api-token': 'wrong' }), 401, 'ERR_UNAUTHORIZED');
    await expectError(await svcd.request('GET', '/v1.0/metadata', undefined, { 'dapr-api-token': token.slice(0, -1) }), 401, 'ERR_UNAUTHORIZED');
    await expectError(await svcd.request('GET', '/v1.0/no-such-route'), 401, 'ERR_UNAUTHORIZED');
  });

  it('accepts svc-api-token and dapr-api-token', async () => {
    await expectStatus(await svcd.request('POST', '/v1.0/state/store', [{ key: 'k', value: 1 }], { 'svc-api-token': token }), 204);
    expect(await expectStatus(await svcd.request('GET', '/v1.0/state/store/k', undefined, { 'dapr-api-token': token }), 200)).to.equal('1');
    await expectStatus(await svcd.request('GET', '/v1.0/metadata', undefined, { 'svc-api-token': token }), 200);
  });

  it('serves the health routes without the token', async () => {
    await expectStatus(await svcd.request('GET', '/v1.0/healthz'), 204);
    await expectStatus(await svcd.request('GET', '/v1.0/healthz/outbound'), 204);
  });

  it('needs no token when SVC_API_TOKEN is not set', async () => {
    const open = await SvcdProcess.start({ resources: { 'store.yaml': componentYaml('store', 'state.in-memory') } });
    try {
      await expectStatus(await open.request('GET', '/v1.0/state/store/k'), 204);
    } finally {
      await open.stop();
    }
  });
});
