import { expect } from 'chai';
import * as yaml from 'js-yaml';
import type { AccessControl } from '../../src/components/access-control-spec.js';
import { parseConfiguration } from '../../src/components/configuration-resource.js';
import { accessDecision, type Caller } from '../../src/invocation/access-control.js';
import { normalizePath } from '../../src/invocation/operation-path.js';

/** The accessControl of a Configuration written as users write it. */
function acl(text: string): AccessControl {
  const config = parseConfiguration(yaml.load(text), 'test.yaml');
  if (config.accessControl === undefined) throw new Error('the test document has no accessControl');
  return config.accessControl;
}

const app = (appId: string, namespace = 'default', trustDomain = 'public'): Caller => ({ appId, namespace, trustDomain });
const allowed = (policy: AccessControl | undefined, caller: Caller, verb: string, path: string): boolean => accessDecision(policy, caller, { verb, path }).allowed;

/** Dapr's documented scenarios (docs.dapr.io, "Apply access control list configuration for service invocation"). */
const SCENARIO_1 = `
apiVersion: dapr.io/v1alpha1
kind: Configuration
metadata: { name: appconfig }
spec:
  accessControl:
    defaultAction: deny
    trustDomain: "public"
    policies:
    - appId: app1
      defaultAction: allow
      trustDomain: 'public'
      namespace: "default"
`;
const SCENARIO_2 = `
apiVersion: dapr.io/v1alpha1
kind: Configuration
metadata: { name: appconfig }
spec:
  accessControl:
    defaultAction: deny
    trustDomain: "public"
    policies:
    - appId: app1
      defaultAction: deny
      trustDomain: 'public'
      namespace: "default"
      operations:
      - name: /op1
        httpVerb: ['*']
        action: allow
`;
const SCENARIO_3 = `
apiVersion: dapr.io/v1alpha1
kind: Configuration
metadata: { name: appconfig }
spec:
  accessControl:
    defaultAction: deny
    trustDomain: "public"
    policies:
    - appId: app1
      defaultAction: deny
      trustDomain: 'public'
      namespace: "default"
      operations:
      - name: /op1
        httpVerb: ['POST', 'PUT']
        action: allow
    - appId: app2
      defaultAction: deny
      trustDomain: 'myDomain'
      namespace: "ns1"
      operations:
      - name: /op2
        action: allow
`;
const SCENARIO_4 = `
apiVersion: dapr.io/v1alpha1
kind: Configuration
metadata: { name: appconfig }
spec:
  accessControl:
    defaultAction: allow
    trustDomain: "public"
    policies:
    - appId: app1
      defaultAction: allow
      trustDomain: 'public'
      namespace: "default"
      operations:
      - name: /op1/*
        httpVerb: ['*']
        action: deny
`;
const SCENARIO_5 = `
apiVersion: dapr.io/v1alpha1
kind: Configuration
metadata: { name: appconfig }
spec:
  accessControl:
    defaultAction: allow
    trustDomain: "public"
    policies:
    - appId: app1
      defaultAction: allow
      trustDomain: 'public'
      namespace: "ns1"
    - appId: app1
      defaultAction: deny
      trustDomain: 'public'
      namespace: "ns2"
`;
const HELLO_WORLD = `
apiVersion: dapr.io/v1alpha1
kind: Configuration
metadata: { name: nodeappconfig }
spec:
  tracing: { samplingRate: "1" }
  accessControl:
    defaultAction: allow
    trustDomain: "public"
    policies:
    - appId: pythonapp
      defaultAction: allow
      trustDomain: 'myDomain'
      namespace: "default"
      operations:
      - name: /neworder
        httpVerb: ['POST']
        action: deny
`;

/** A policy for app1 (public, default) with the given operations, under the given default actions. */
function policyWith(operations: string, opts: { global?: string; app?: string } = {}): AccessControl {
  return acl(`
apiVersion: svc.io/v1alpha1
kind: Configuration
metadata: { name: c }
spec:
  accessControl:
    defaultAction: ${opts.global ?? 'deny'}
    policies:
    - appId: app1
      ${opts.app === undefined ? '' : `defaultAction: ${opts.app}`}
      operations: ${operations}
`);
}

describe('access control decision', () => {
  it('allows everything without a policy', () => {
    const d = accessDecision(undefined, app('anyone'), { verb: 'DELETE', path: '/admin' });
    expect(d).to.deep.equal({ allowed: true, reason: 'allowed: no access control policy' });
  });

  it('scenario 1: only app1 of public/default, on every method', () => {
    const p = acl(SCENARIO_1);
    expect(allowed(p, app('app1'), 'GET', '/anything')).to.equal(true);
    expect(allowed(p, app('app1'), 'DELETE', '/a/b/c')).to.equal(true);
    expect(allowed(p, app('app2'), 'GET', '/anything')).to.equal(false);
    expect(allowed(p, app('app1', 'other'), 'GET', '/anything')).to.equal(false);
    expect(allowed(p, app('app1', 'default', 'evil.example'), 'GET', '/anything')).to.equal(false);
  });

  it('scenario 2: only op1 of app1', () => {
    const p = acl(SCENARIO_2);
    expect(allowed(p, app('app1'), 'GET', '/op1')).to.equal(true);
    expect(allowed(p, app('app1'), 'POST', 'op1')).to.equal(true);
    expect(allowed(p, app('app1'), 'GET', '/op2')).to.equal(false);
    expect(allowed(p, app('app1'), 'GET', '/op1/sub')).to.equal(false);
    expect(allowed(p, app('app2'), 'GET', '/op1')).to.equal(false);
  });

  it('scenario 3: POST/PUT on op1 for app1; op2 for app2 of myDomain/ns1 over gRPC', () => {
    const p = acl(SCENARIO_3);
    expect(allowed(p, app('app1'), 'POST', '/op1')).to.equal(true);
    expect(allowed(p, app('app1'), 'PUT', '/op1')).to.equal(true);
    expect(allowed(p, app('app1'), 'GET', '/op1')).to.equal(false);
    expect(allowed(p, app('app1'), 'DELETE', '/op1')).to.equal(false);
    expect(allowed(p, app('app2', 'ns1', 'myDomain'), '', '/op2')).to.equal(true);
    expect(allowed(p, app('app2', 'ns1', 'myDomain'), '', '/op1')).to.equal(false);
    expect(allowed(p, app('app2', 'ns1', 'public'), '', '/op2')).to.equal(false);
  });

  it('scenario 4: everything but one segment under /op1 for app1', () => {
    const p = acl(SCENARIO_4);
    expect(allowed(p, app('app1'), 'GET', '/op1/x')).to.equal(false);
    expect(allowed(p, app('app1'), 'POST', '/op1/y')).to.equal(false);
    expect(allowed(p, app('app1'), 'GET', '/op1')).to.equal(true);
    expect(allowed(p, app('app1'), 'GET', '/op1/x/y')).to.equal(true);
    expect(allowed(p, app('app2'), 'GET', '/op1/x')).to.equal(true);
  });

  it('scenario 5: one app id, two namespaces, two answers', () => {
    const p = acl(SCENARIO_5);
    expect(allowed(p, app('app1', 'ns1'), 'GET', '/op')).to.equal(true);
    expect(allowed(p, app('app1', 'ns2'), 'GET', '/op')).to.equal(false);
    expect(allowed(p, app('app1', 'ns3'), 'GET', '/op')).to.equal(true);
  });

  it('hello world: pythonapp of myDomain may not POST /neworder, and may do the rest', () => {
    const p = acl(HELLO_WORLD);
    const python = app('pythonapp', 'default', 'myDomain');
    expect(allowed(p, python, 'POST', '/neworder')).to.equal(false);
    expect(allowed(p, python, 'GET', '/neworder')).to.equal(true);
    expect(allowed(p, app('pythonapp'), 'POST', '/neworder')).to.equal(true);
  });

  it('says which rule decided', () => {
    const p = acl(SCENARIO_3);
    expect(accessDecision(p, app('app9'), { verb: 'GET', path: '/op1' }).reason).to.equal(
      "denied by the global defaultAction: no policy for app 'app9' (namespace 'default', trust domain 'public')",
    );
    expect(accessDecision(p, app('app1'), { verb: 'post', path: '/op1?x=1' }).reason).to.equal(
      "allowed by operation '/op1' [POST, PUT] of the policy for app 'app1' (namespace 'default', trust domain 'public'), matching POST /op1",
    );
    expect(accessDecision(p, app('app1'), { verb: 'GET', path: '/op1' }).reason).to.equal(
      "denied by the defaultAction of the policy for app 'app1' (namespace 'default', trust domain 'public'): no operation matches GET /op1",
    );
    const noAppDefault = policyWith("[{ name: /op1, action: deny }]", { global: 'allow' });
    expect(accessDecision(noAppDefault, app('app1'), { verb: '', path: '/op2' }).reason).to.equal(
      "allowed by the global defaultAction: the policy for app 'app1' (namespace 'default', trust domain 'public') has no defaultAction and no operation matches gRPC /op2",
    );
  });

  describe('wildcards', () => {
    it('`*` is one segment, `**` any number (none included), a `*` inside a segment any characters of it', () => {
      const p = policyWith("[{ name: '/one/*', action: allow }, { name: '/any/**', action: allow }, { name: '/orders*', action: allow }, { name: '/v1/*/items', action: allow }]");
      const ok = (path: string) => allowed(p, app('app1'), 'GET', path);
      expect([ok('/one/a'), ok('/one'), ok('/one/a/b')]).to.deep.equal([true, false, false]);
      expect([ok('/any'), ok('/any/a'), ok('/any/a/b/c')]).to.deep.equal([true, true, true]);
      expect([ok('/orders'), ok('/orders-archive'), ok('/orders/1')]).to.deep.equal([true, true, false]);
      expect([ok('/v1/shop/items'), ok('/v1/items'), ok('/v1/a/b/items')]).to.deep.equal([true, false, false]);
    });

    it('the most specific match wins, whatever the order of the operations', () => {
      const ops = [
        "{ name: '/admin/**', action: deny }",
        "{ name: '/admin/health', action: allow }",
        "{ name: '/admin/*/public', action: allow }",
        "{ name: '/admin/reports/*', action: allow }",
        "{ name: '/admin/reports/secret*', action: deny }",
        "{ name: '/admin/reports/secret-summary', action: allow }",
      ];
      for (const order of [ops, [...ops].reverse()]) {
        const p = policyWith(`[${order.join(', ')}]`, { app: 'allow' });
        const ok = (path: string) => allowed(p, app('app1'), 'GET', path);
        expect(ok('/admin/health'), 'literal over **').to.equal(true);
        expect(ok('/admin'), '** matches no segment').to.equal(false);
        expect(ok('/admin/users/1'), '**').to.equal(false);
        expect(ok('/admin/users/public'), '* over **').to.equal(true);
        expect(ok('/admin/reports/weekly'), 'literal then * over * then literal').to.equal(true);
        expect(ok('/admin/reports/secret-plans'), 'partial over *').to.equal(false);
        expect(ok('/admin/reports/secret-summary'), 'literal over partial').to.equal(true);
        expect(ok('/elsewhere'), "the policy's defaultAction").to.equal(true);
      }
    });

    it('an exact pattern beats the same prefix followed by **, and a constrained ** beats a bare one', () => {
      const p = policyWith("[{ name: '/a/**', action: deny }, { name: '/a', action: allow }, { name: '/b/**', action: allow }, { name: '/b/**/x', action: deny }]");
      expect(allowed(p, app('app1'), 'GET', '/a')).to.equal(true);
      expect(allowed(p, app('app1'), 'GET', '/a/b')).to.equal(false);
      expect(allowed(p, app('app1'), 'GET', '/b/c/x')).to.equal(false);
      expect(allowed(p, app('app1'), 'GET', '/b/c/y')).to.equal(true);
    });
  });

  describe('verbs', () => {
    it('match without case, from a list, or any with *', () => {
      const p = policyWith("[{ name: /orders, httpVerb: [get, HEAD], action: allow }, { name: /any, httpVerb: ['*'], action: allow }]");
      expect(allowed(p, app('app1'), 'get', '/orders')).to.equal(true);
      expect(allowed(p, app('app1'), 'HEAD', '/orders')).to.equal(true);
      expect(allowed(p, app('app1'), 'POST', '/orders')).to.equal(false);
      expect(allowed(p, app('app1'), 'PATCH', '/any')).to.equal(true);
    });

    it('an operation whose verb does not match leaves the decision to the next most specific one', () => {
      const p = policyWith("[{ name: '/admin/**', action: deny }, { name: /admin/status, httpVerb: [GET], action: allow }]", { app: 'allow' });
      expect(allowed(p, app('app1'), 'GET', '/admin/status')).to.equal(true);
      expect(allowed(p, app('app1'), 'POST', '/admin/status')).to.equal(false);
    });

    it('on one pattern, named verbs beat *, and deny beats allow', () => {
      const named = policyWith("[{ name: /op, httpVerb: ['*'], action: deny }, { name: /op, httpVerb: [GET], action: allow }]");
      expect(allowed(named, app('app1'), 'GET', '/op')).to.equal(true);
      expect(allowed(named, app('app1'), 'PUT', '/op')).to.equal(false);
      const both = policyWith('[{ name: /op, action: allow }, { name: /op, action: deny }]', { app: 'allow' });
      expect(allowed(both, app('app1'), 'GET', '/op')).to.equal(false);
    });

    it('a gRPC invocation (no verb) is decided by the operation alone', () => {
      const p = policyWith('[{ name: /op, httpVerb: [POST], action: allow }]');
      expect(allowed(p, app('app1'), '', '/op')).to.equal(true);
      expect(allowed(p, app('app1'), '', '/other')).to.equal(false);
    });
  });

  describe('identity', () => {
    const p = acl(SCENARIO_1);
    it('ignores a policy whose trust domain differs from the caller\'s', () => {
      const d = accessDecision(p, app('app1', 'default', 'myDomain'), { verb: 'GET', path: '/x' });
      expect(d.allowed).to.equal(false);
      expect(d.reason).to.match(/^denied by the global defaultAction: no policy for app 'app1' \(namespace 'default', trust domain 'myDomain'\)$/);
    });
    it('ignores a policy whose namespace differs from the caller\'s', () => {
      expect(accessDecision(p, app('app1', 'prod'), { verb: 'GET', path: '/x' }).reason).to.match(/global defaultAction: no policy for app 'app1' \(namespace 'prod'/);
    });
    it('compares app ids exactly', () => {
      expect(allowed(p, app('APP1'), 'GET', '/x')).to.equal(false);
      expect(allowed(p, app('app1 '), 'GET', '/x')).to.equal(false);
    });
  });

  describe('path normalisation', () => {
    it('normalises paths before comparing them', () => {
      const cases: [string, string][] = [
        ['', '/'],
        ['admin', '/admin'],
        ['//admin//users/', '/admin/users'],
        ['/a/./b/../c', '/a/c'],
        ['/../../admin', '/admin'],
        ['/admin?x=1#f', '/admin'],
        ['/%61dmin/%7Euser', '/admin/~user'],
        ['/a/%2e%2E/admin', '/admin'],
        ['/files/a%2fb', '/files/a%2Fb'],
        ['/%252e%252e/admin', '/%252e%252e/admin'],
        ['/caf%C3%A9', '/caf%C3%A9'],
      ];
      for (const [raw, normalised] of cases) expect(normalizePath(raw), raw).to.equal(normalised);
    });

    it('no spelling of a denied path gets past the deny', () => {
      const p = policyWith("[{ name: '/admin/**', action: deny }]", { app: 'allow' });
      const attempts = ['/admin', '/a/../admin', '/./admin', '//admin', '/admin/', 'admin', '/ADMIN', '/%61dmin', '/%2e%2e/admin', '/x/%2E%2E/admin/users', '/admin?x=1', '/admin#top', '/../../admin/users', '/public/..//admin'];
      for (const path of attempts) expect(accessDecision(p, app('app1'), { verb: 'GET', path }).allowed, path).to.equal(false);
      expect(allowed(p, app('app1'), 'GET', '/administrator')).to.equal(true);
    });

    it('an allow list cannot be climbed out of', () => {
      const p = policyWith("[{ name: '/public/**', action: allow }]", { app: 'deny' });
      expect(allowed(p, app('app1'), 'GET', '/public/page')).to.equal(true);
      for (const path of ['/public/../admin', '/public/%2e%2e/admin', '/public/./../../admin']) expect(allowed(p, app('app1'), 'GET', path), path).to.equal(false);
    });

    it('operation names are normalised like paths', () => {
      const p = policyWith("[{ name: 'admin//users/', action: allow }, { name: '/%61pi', action: allow }]");
      expect(allowed(p, app('app1'), 'GET', '/admin/users')).to.equal(true);
      expect(allowed(p, app('app1'), 'GET', '/api')).to.equal(true);
    });
  });
});
