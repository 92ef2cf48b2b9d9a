import { expect } from 'chai';
import { compileMatch } from '../../src/pubsub/route-match.js';
import { expectRuntimeError } from '../support/expect-runtime-error.js';

const event = { type: 'com.shop.order', source: 'shop-eu', data: { amount: 120, region: 'eu', tags: ['a', 'b'], nested: { ok: true } } };

describe('routing rule expressions (the CEL subset of subscription rules)', () => {
  const cases: [string, boolean][] = [
    ['event.type == "com.shop.order"', true],
    ["event.type == 'com.shop.refund'", false],
    ['event.data.amount >= 100 && event.data.amount < 200', true],
    ['event.data.amount > 200 || event.data.region == "eu"', true],
    ['!(event.data.region == "us")', true],
    ['event.data.region in ["eu", "us"]', true],
    ['event.source.startsWith("shop") && event.source.endsWith("-eu") && event.type.contains("order")', true],
    ['event.source.matches("^shop-[a-z]{2}$")', true],
    ['has(event.data.nested) && !has(event.data.missing)', true],
    ['size(event.data.tags) == 2 && event.data.tags[1] == "b"', true],
    ['event.data["nested"].ok == true', true],
    ['event.data.missing == 1', false],
    ['event.data.amount == "120"', false],
    ['event.data.amount < "x"', false],
  ];
  for (const [expression, expected] of cases) {
    it(`${expression} → ${expected}`, () => {
      expect(compileMatch(expression)(event)).to.equal(expected);
    });
  }

  it('refuses expressions it cannot parse, naming them', () => {
    for (const bad of ['event.type ==', 'event.type = "x"', 'request.type == "x"', 'event.type.lower()', '(event.type']) {
      expectRuntimeError(() => compileMatch(bad), 'ERR_PUBSUB_SUBSCRIPTION_INVALID', /cannot be parsed/);
    }
  });
});
