import { expect } from 'chai';
import { appRequestHeaders, forwardedAnswerHeaders, forwardedRequestHeaders } from '../../src/invocation/headers.js';
import { parseTarget } from '../../src/invocation/target.js';
import { expectRuntimeError } from '../support/expect-runtime-error.js';

describe('invocation: which headers cross, and targets', () => {
  it('drops hop-by-hop headers, those the Connection header names, tokens, routing and identity headers', () => {
    const out = forwardedRequestHeaders({
      connection: 'keep-alive, x-hop',
      'x-hop': 'gone',
      'keep-alive': 'timeout=5',
      'transfer-encoding': 'chunked',
      expect: '100-continue',
      host: 'localhost:3500',
      'svc-api-token': 't',
      'dapr-api-token': 't',
      'dapr-app-id': 'orders',
      'dapr-caller-app-id': 'forged',
      'svc-callee-app-id': 'forged',
      traceparent: '00-abc-def-01',
      'content-length': '12',
      'x-kept': ['a', 'b'],
    });
    expect(out).to.deep.equal({ traceparent: '00-abc-def-01', 'content-length': '12', 'x-kept': ['a', 'b'] });
  });

  it('writes who calls whom from the authenticated identity, over anything sent', () => {
    const out = appRequestHeaders({ 'dapr-caller-app-id': 'forged', 'x-a': '1' }, { appId: 'checkout', namespace: 'shop' }, { appId: 'orders', namespace: 'shop' });
    expect(out).to.deep.equal({ 'x-a': '1', 'dapr-caller-app-id': 'checkout', 'dapr-caller-namespace': 'shop', 'dapr-callee-app-id': 'orders' });
  });

  it("keeps the app's answer headers but the hop-by-hop ones", () => {
    expect(forwardedAnswerHeaders({ 'content-type': 'text/plain', 'transfer-encoding': 'chunked', connection: 'close', 'x-app': 'y' })).to.deep.equal({ 'content-type': 'text/plain', 'x-app': 'y' });
  });

  it('reads <app-id> and <app-id>.<namespace>, and refuses what is not a label', () => {
    expect(parseTarget('orders', 'default')).to.deep.equal({ appId: 'orders', namespace: 'default' });
    expect(parseTarget('orders.shop', 'default')).to.deep.equal({ appId: 'orders', namespace: 'shop' });
    for (const bad of ['', 'a b', '../x', 'orders.', '.shop', `${'a'.repeat(64)}`, 'a/b', 'orders.sh op']) {
      expectRuntimeError(() => parseTarget(bad, 'default'), 'ERR_MALFORMED_REQUEST', /^invalid (app id|namespace)/);
    }
  });
});
