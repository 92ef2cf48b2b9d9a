import type { V1Pod } from '@kubernetes/client-node';
import { expect } from 'chai';
import type { ComponentObject } from '../src/components/component-containers.js';
import { buildPodPatch, NO_API_ACCESS_WARNING, type PatchOutcome } from '../src/patch/build-patch.js';
import { filterRequest } from '../src/webhook/filter.js';
import { CreatorTrust } from '../src/webhook/trust.js';
import { applyAndValidate, container, envOf, makePod } from './support/pods.js';

const settings = { sidecarImage: 'svc/svcd:test', sidecarImagePullPolicy: 'IfNotPresent', socketsFolder: '/tmp/svc-components-sockets', componentContainerPolicy: 'restricted' as const };
const SOCKETS = '/tmp/svc-components-sockets';

function component(name: string, scopes: string[] | undefined, containerJson?: string | object): ComponentObject {
  return {
    metadata: {
      name,
      annotations: containerJson === undefined ? {} : { 'svc.io/component-container': typeof containerJson === 'string' ? containerJson : JSON.stringify(containerJson) },
    },
    spec: { type: `state.${name}`, version: 'v1' },
    ...(scopes ? { scopes } : {}),
  };
}

function patched(outcome: PatchOutcome): Extract<PatchOutcome, { kind: 'patch' }> {
  expect(outcome.kind, outcome.kind === 'deny' ? outcome.reason : '').to.equal('patch');
  return outcome as Extract<PatchOutcome, { kind: 'patch' }>;
}

interface Case {
  name: string;
  pod: V1Pod;
  components?: ComponentObject[] | undefined;
  check: (result: V1Pod, outcome: Extract<PatchOutcome, { kind: 'patch' }>) => void;
}

const cases: Case[] = [
  {
    name: 'pod without volumes: svcd, labels, app env, ONE /spec/volumes op',
    pod: makePod(),
    check: (pod, out) => {
      const svcd = container(pod, 'svcd');
      expect(svcd.image).to.equal('svc/svcd:test');
      expect(envOf(svcd)).to.include({ SVC_APP_ID: 'myapp', SVC_MODE: 'kubernetes', SVC_HTTP_PORT: '3500', SVC_GRPC_PORT: '50001', SVC_INTERNAL_GRPC_PORT: '50002', SVC_METRICS_PORT: '9090' });
      expect(svcd.ports?.map((p) => p.containerPort)).to.deep.equal([3500, 50001, 50002, 9090]);
      expect(svcd.env?.find((e) => e.name === 'SVC_INTERNAL_ADDRESS')?.valueFrom?.fieldRef?.fieldPath).to.equal('status.podIP');
      expect(svcd.readinessProbe?.httpGet?.path).to.equal('/v1.0/healthz');
      expect(svcd.livenessProbe?.httpGet?.path).to.equal('/v1.0/healthz');
      expect(svcd.securityContext).to.include({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
      expect(envOf(container(pod, 'app'))).to.deep.equal({ SVC_HTTP_PORT: '3500', SVC_GRPC_PORT: '50001', DAPR_HTTP_PORT: '3500', DAPR_GRPC_PORT: '50001' });
      expect(pod.metadata?.labels).to.deep.equal({ 'svc.io/sidecar-injected': 'true', 'svc.io/app-id': 'myapp' });
      expect(out.patch.filter((op) => op.path === '/spec/volumes')).to.have.length(1);
      expect(pod.spec?.volumes?.map((v) => v.name)).to.deep.equal(['svc-data', 'svc-invoke-token']);
      expect(out.warnings).to.deep.equal([]);
      // svcd's invocation token: for audience svc.io/invoke only, at the default of its --invoke-token-file.
      expect(pod.spec?.volumes?.[1]?.projected?.sources).to.deep.equal([{ serviceAccountToken: { audience: 'svc.io/invoke', expirationSeconds: 3600, path: 'token' } }]);
      expect(svcd.volumeMounts).to.deep.include({ name: 'svc-invoke-token', mountPath: '/var/run/secrets/svc.io/invoke', readOnly: true });
    },
  },
  {
    name: 'pod with volumes and labels: appended, nothing replaced',
    pod: makePod({
      volumes: [{ name: 'kube-api-access-x', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }],
      containers: [{ name: 'app', image: 'a', volumeMounts: [{ name: 'kube-api-access-x', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }] }],
    }),
    check: (pod, out) => {
      expect(pod.spec?.volumes?.map((v) => v.name)).to.deep.equal(['kube-api-access-x', 'svc-data', 'svc-invoke-token']);
      expect(out.patch.some((op) => op.path === '/spec/volumes')).to.equal(false);
      expect(container(pod, 'app').volumeMounts).to.have.length(1);
    },
  },
  {
    name: 'existing env and labels: the user\'s values win, the rest is appended',
    pod: (() => {
      const p = makePod({ containers: [{ name: 'app', image: 'a', env: [{ name: 'DAPR_HTTP_PORT', value: '9999' }, { name: 'OWN', value: '1' }] }] });
      p.metadata!.labels = { app: 'shop' };
      return p;
    })(),
    check: (pod) => {
      expect(envOf(container(pod, 'app'))).to.deep.equal({ DAPR_HTTP_PORT: '9999', OWN: '1', SVC_HTTP_PORT: '3500', SVC_GRPC_PORT: '50001', DAPR_GRPC_PORT: '50001' });
      expect(pod.metadata?.labels).to.deep.equal({ app: 'shop', 'svc.io/sidecar-injected': 'true', 'svc.io/app-id': 'myapp' });
    },
  },
  {
    name: 'manual mode (svc.io/pluggable-components): existing containers get the socket volume and env, not app env',
    pod: makePod({
      annotations: { 'svc.io/pluggable-components': 'redis-pluggable' },
      containers: [{ name: 'app', image: 'a' }, { name: 'redis-pluggable', image: 'c', env: [{ name: 'X', value: '1' }] }],
    }),
    check: (pod, out) => {
      const comp = container(pod, 'redis-pluggable');
      expect(envOf(comp)).to.deep.equal({ X: '1', SVC_COMPONENTS_SOCKETS_FOLDER: SOCKETS, DAPR_COMPONENTS_SOCKETS_FOLDER: SOCKETS, DAPR_COMPONENT_SOCKETS_FOLDER: SOCKETS });
      expect(comp.volumeMounts).to.deep.equal([{ name: 'svc-components-sockets', mountPath: SOCKETS }]);
      expect(envOf(container(pod, 'app'))).to.not.have.property('SVC_COMPONENTS_SOCKETS_FOLDER');
      const svcd = container(pod, 'svcd');
      expect(svcd.volumeMounts).to.deep.include({ name: 'svc-components-sockets', mountPath: SOCKETS });
      expect(envOf(svcd).SVC_COMPONENTS_SOCKETS_FOLDER).to.equal(SOCKETS);
      expect(pod.spec?.volumes?.map((v) => v.name)).to.deep.equal(['svc-data', 'svc-invoke-token', 'svc-components-sockets']);
      expect(out.patch.filter((op) => op.path === '/spec/volumes')).to.have.length(1);
    },
  },
  {
    name: 'inject mode, scoped component: its container with every field kept, plus socket mount and env',
    pod: makePod({ annotations: { 'svc.io/inject-pluggable-components': 'true' } }),
    components: [
      component('statestore', ['myapp'], {
        name: 'my-store',
        image: 'svc/example-pluggable-component:1',
        env: [{ name: 'STORE_MODE', value: 'memory' }],
        resources: { limits: { memory: '64Mi' } },
        volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
        securityContext: { runAsNonRoot: true },
      }),
      component('plain-redis', ['myapp']),
    ],
    check: (pod, out) => {
      const comp = container(pod, 'my-store');
      expect(comp.image).to.equal('svc/example-pluggable-component:1');
      expect(envOf(comp)).to.include({ STORE_MODE: 'memory', SVC_COMPONENTS_SOCKETS_FOLDER: SOCKETS });
      expect(comp.resources).to.deep.equal({ limits: { memory: '64Mi' } });
      expect(comp.securityContext).to.deep.equal({ runAsNonRoot: true });
      expect(comp.volumeMounts).to.deep.equal([{ name: 'scratch', mountPath: '/scratch' }, { name: 'svc-components-sockets', mountPath: SOCKETS }]);
      expect(pod.spec?.volumes?.map((v) => v.name)).to.deep.equal(['svc-data', 'svc-invoke-token', 'svc-components-sockets', 'scratch']);
      expect(container(pod, 'svcd').volumeMounts?.map((m) => m.name)).to.include('svc-components-sockets');
      expect(out.warnings).to.deep.equal([]);
      expect(pod.spec?.containers.map((c) => c.name)).to.deep.equal(['app', 'my-store', 'svcd']);
    },
  },
  {
    name: 'inject mode, one socket behind two Components (state.x and pubsub.x): the container is injected once',
    pod: makePod({ annotations: { 'svc.io/inject-pluggable-components': 'true' } }),
    components: [component('store', ['myapp'], { name: 'multi', image: 'i' }), component('bus', ['myapp'], { name: 'multi', image: 'i' })],
    check: (pod) => expect(pod.spec?.containers.map((c) => c.name)).to.deep.equal(['app', 'multi', 'svcd']),
  },
  {
    name: 'inject mode, unscoped component: not injected, warning names it and the fix',
    pod: makePod({ annotations: { 'svc.io/inject-pluggable-components': 'true' } }),
    components: [component('open-store', undefined, { name: 'open', image: 'i' })],
    check: (pod, out) => {
      expect(pod.spec?.containers.map((c) => c.name)).to.deep.equal(['app', 'svcd']);
      expect(out.warnings).to.have.length(1);
      expect(out.warnings[0]).to.contain('"open-store"').and.contain('scopes: ["myapp"]');
      expect(pod.spec?.volumes?.map((v) => v.name)).to.deep.equal(['svc-data', 'svc-invoke-token']);
    },
  },
  {
    name: 'inject mode, component scoped to another app: not injected, warning names it and the fix',
    pod: makePod({ annotations: { 'svc.io/inject-pluggable-components': 'true' } }),
    components: [component('other-store', ['billing'], { name: 'other', image: 'i' }), component('mine', ['myapp'], { name: 'mine', image: 'i' })],
    check: (pod, out) => {
      expect(pod.spec?.containers.map((c) => c.name)).to.deep.equal(['app', 'mine', 'svcd']);
      expect(out.warnings).to.deep.equal(['component "other-store" is not injected: it is scoped to billing; add "myapp" to its scopes if this app should run it']);
    },
  },
  {
    name: 'inject mode without API access: svcd injected, warning instead of failing the pod',
    pod: makePod({ annotations: { 'svc.io/inject-pluggable-components': 'true' } }),
    components: undefined,
    check: (pod, out) => {
      expect(pod.spec?.containers.map((c) => c.name)).to.deep.equal(['app', 'svcd']);
      expect(out.warnings).to.deep.equal([NO_API_ACCESS_WARNING]);
    },
  },
  {
    name: 'sidecar knobs from annotations reach the svcd container',
    pod: makePod({
      name: 'named-pod',
      annotations: {
        'svc.io/app-id': 'orders',
        'svc.io/sidecar-image': 'registry/svcd:2',
        'svc.io/sidecar-cpu-request': '100m',
        'svc.io/sidecar-memory-limit': '256Mi',
        'svc.io/log-level': 'debug',
        'svc.io/enable-metrics': 'false',
        'svc.io/api-token-secret': 'svc-token',
        'svc.io/env': 'SVC_LOG_LEVEL=warn,EXTRA=a=b',
        'svc.io/app-port': '8080',
        'svc.io/sidecar-readiness-probe-period-seconds': '7',
      },
    }),
    check: (pod) => {
      const svcd = container(pod, 'svcd');
      expect(svcd.image).to.equal('registry/svcd:2');
      expect(svcd.resources).to.deep.equal({ requests: { cpu: '100m' }, limits: { memory: '256Mi' } });
      expect(envOf(svcd)).to.include({ SVC_APP_ID: 'orders', SVC_LOG_LEVEL: 'warn', EXTRA: 'a=b', SVC_APP_PORT: '8080', SVC_METRICS_PORT: '0' });
      expect(svcd.env?.find((e) => e.name === 'SVC_API_TOKEN')?.valueFrom).to.deep.equal({ secretKeyRef: { name: 'svc-token', key: 'token' } });
      expect(svcd.ports?.map((p) => p.name)).to.not.include('svc-metrics');
      expect(svcd.readinessProbe?.periodSeconds).to.equal(7);
      expect(container(pod, 'app').env?.find((e) => e.name === 'DAPR_API_TOKEN')?.valueFrom).to.deep.equal({ secretKeyRef: { name: 'svc-token', key: 'token' } });
      expect(pod.metadata?.labels?.['svc.io/app-id']).to.equal('orders');
    },
  },
];

describe('injector patch builder', () => {
  for (const c of cases) {
    it(c.name, () => {
      const outcome = patched(buildPodPatch({ pod: c.pod, components: 'components' in c ? c.components : [], settings, callerVerified: true }));
      c.check(applyAndValidate(c.pod, outcome.patch), outcome);
    });
  }

  it('is idempotent: the patched pod is not patched again on reinvocation', () => {
    const pod = makePod({ annotations: { 'svc.io/pluggable-components': 'comp' }, containers: [{ name: 'app', image: 'a' }, { name: 'comp', image: 'c' }] });
    const once = applyAndValidate(pod, patched(buildPodPatch({ pod, components: [], settings, callerVerified: true })).patch);
    const trust = new CreatorTrust({ extraServiceAccounts: [], groups: [] });
    const decision = filterRequest(
      { uid: 'u', kind: { group: '', version: 'v1', kind: 'Pod' }, operation: 'CREATE', object: once, userInfo: { username: 'system:serviceaccount:kube-system:replicaset-controller' } },
      trust,
    );
    expect(decision).to.deep.include({ act: false, reason: 'svcd is already in the pod' });
  });

  const denials: Array<{ name: string; pod: V1Pod; components?: ComponentObject[]; reason: RegExp }> = [
    {
      name: 'invalid component-container JSON of an in-scope component',
      pod: makePod({ annotations: { 'svc.io/inject-pluggable-components': 'true' } }),
      components: [component('broken', ['myapp'], '{"name": "x", image: }'), component('fine', ['myapp'], { name: 'fine', image: 'i' })],
      reason: /component "broken": annotation svc.io\/component-container is not valid JSON/,
    },
    {
      name: 'component container without image',
      pod: makePod({ annotations: { 'svc.io/inject-pluggable-components': 'true' } }),
      components: [component('noimage', ['myapp'], { name: 'x' })],
      reason: /component "noimage".*needs "image"/,
    },
    {
      name: 'component container that is not an object',
      pod: makePod({ annotations: { 'svc.io/inject-pluggable-components': 'true' } }),
      components: [component('arr', ['myapp'], '["x"]')],
      reason: /must be a JSON object/,
    },
    { name: 'bad annotation value', pod: makePod({ annotations: { 'svc.io/app-port': 'eighty' } }), reason: /svc.io\/app-port: 'eighty' is not a port number/ },
    { name: 'bad boolean', pod: makePod({ annotations: { 'svc.io/log-as-json': 'maybe' } }), reason: /svc.io\/log-as-json: 'maybe' is not a boolean/ },
    { name: 'no app id and no pod name (controller-created pod)', pod: (() => { const p = makePod(); delete p.metadata!.annotations!['svc.io/app-id']; return p; })(), reason: /svc.io\/app-id is required/ },
    { name: 'bad app id', pod: makePod({ annotations: { 'svc.io/app-id': 'My_App' } }), reason: /not a valid app id/ },
    { name: 'pluggable-components naming a missing container', pod: makePod({ annotations: { 'svc.io/pluggable-components': 'ghost' } }), reason: /"ghost", which is not a container of this pod/ },
    {
      name: 'injected container name already used by the pod',
      pod: makePod({ annotations: { 'svc.io/inject-pluggable-components': 'true' } }),
      components: [component('dup', ['myapp'], { name: 'app', image: 'i' })],
      reason: /already has a container named "app"/,
    },
    {
      name: 'two Components declaring different containers under one name',
      pod: makePod({ annotations: { 'svc.io/inject-pluggable-components': 'true' } }),
      components: [component('a', ['myapp'], { name: 'c', image: 'i1' }), component('b', ['myapp'], { name: 'c', image: 'i2' })],
      reason: /components "a" and "b" declare different containers named "c"/,
    },
  ];
  for (const d of denials) {
    it(`denies with a reason and no patch: ${d.name}`, () => {
      const outcome = buildPodPatch({ pod: d.pod, components: d.components ?? [], settings, callerVerified: true });
      expect(outcome.kind).to.equal('deny');
      expect((outcome as { reason: string }).reason).to.match(d.reason);
      expect(outcome).to.not.have.property('patch');
    });
  }

  it('takes the pod name as app id when there is no annotation', () => {
    const pod = makePod({ name: 'standalone-pod' });
    delete pod.metadata!.annotations!['svc.io/app-id'];
    const result = applyAndValidate(pod, patched(buildPodPatch({ pod, components: [], settings, callerVerified: true })).patch);
    expect(envOf(container(result, 'svcd')).SVC_APP_ID).to.equal('standalone-pod');
  });
});
