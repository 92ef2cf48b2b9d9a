/** manifests/: the rendered chart is current, and the example app is injected into a valid pod. */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { V1Pod } from '@kubernetes/client-node';
import { expect } from 'chai';
import * as yaml from 'js-yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import type { ComponentObject } from '../src/components/component-containers.js';
import { buildPodPatch } from '../src/patch/build-patch.js';
import { applyAndValidate, container, envOf } from './support/pods.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const EXAMPLES = path.join(REPO, 'manifests/examples');

type Doc = { kind: string; metadata: { name: string; namespace?: string }; [k: string]: unknown };

function exampleDocs(): Doc[] {
  return readdirSync(EXAMPLES)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) => yaml.loadAll(readFileSync(path.join(EXAMPLES, f), 'utf8')) as Doc[])
    .filter(Boolean);
}

describe('manifests', function () {
  this.timeout(60_000);

  it('manifests/svc.yaml is the current rendering of charts/svc (re-run manifests/render.sh)', () => {
    const committed = readFileSync(path.join(REPO, 'manifests/svc.yaml'), 'utf8');
    const res = spawnSync('bash', [path.join(REPO, 'manifests/render.sh'), '--stdout'], { encoding: 'utf8' });
    expect(res.status, res.stderr).to.equal(0);
    expect(res.stdout).to.equal(committed);
  });

  it('the example Deployment, injected with the example Components, is a valid pod with svcd and one memstore container', () => {
    const docs = exampleDocs();
    const deployment = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'orders') as unknown as Deployment;
    new Deployment(deployment).validate();
    expect(deployment.spec!.replicas, 'several replicas of one app share actors and workflows').to.equal(3);
    const components = docs.filter((d) => d.kind === 'Component') as unknown as ComponentObject[];
    expect(components.map((c) => c.metadata?.name)).to.deep.equal(['wfstore', 'statestore', 'orderbus']);
    // The actor store is one that can arbitrate between the replicas.
    const actorStores = components.filter((c) => (c.spec as { metadata?: { name: string; value: string }[] }).metadata?.some((m) => m.name === 'actorStateStore' && m.value === 'true'));
    expect(actorStores.map((c) => (c.spec as { type: string }).type)).to.deep.equal(['state.redis']);
    const template = deployment.spec!.template;
    const pod: V1Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { ...(template.metadata as unknown as V1Pod['metadata']), generateName: 'orders-', namespace: 'shop' }, spec: template.spec as V1Pod['spec'] };
    const outcome = buildPodPatch({ pod, components, settings: { sidecarImage: 'svc/svcd:0.1.0', sidecarImagePullPolicy: 'IfNotPresent', socketsFolder: '/tmp/svc-components-sockets', componentContainerPolicy: 'restricted' as const }, callerVerified: true });
    expect(outcome.kind, JSON.stringify(outcome)).to.equal('patch');
    if (outcome.kind !== 'patch') return;
    expect(outcome.warnings).to.deep.equal([]);
    const patched = applyAndValidate(pod, outcome.patch);
    expect(patched.spec?.containers.map((c) => c.name)).to.deep.equal(['worker', 'memstore', 'svcd']);
    expect(container(patched, 'memstore').image).to.equal('svc/example-pluggable-component:0.1.0');
    expect(envOf(container(patched, 'memstore')).SVC_COMPONENTS_SOCKETS_FOLDER).to.equal('/tmp/svc-components-sockets');
    expect(envOf(container(patched, 'worker'))).to.include({ SVC_GRPC_ADDRESS: 'localhost:50001', SVC_GRPC_PORT: '50001' });
    expect(container(patched, 'svcd').env?.find((e) => e.name === 'SVC_INTERNAL_ADDRESS')?.valueFrom?.fieldRef?.fieldPath).to.equal('status.podIP');
  });

  it('the example namespace is opted in and binds the components reader and token reviewer roles the chart defines', () => {
    const docs = exampleDocs();
    const ns = docs.find((d) => d.kind === 'Namespace') as unknown as { metadata: { labels: Record<string, string> } };
    expect(ns.metadata.labels['svc.io/injection']).to.equal('enabled');
    const rendered = yaml.loadAll(readFileSync(path.join(REPO, 'manifests/svc.yaml'), 'utf8')) as Doc[];
    const bound = docs.filter((d) => d.kind === 'RoleBinding' || d.kind === 'ClusterRoleBinding').map((d) => (d as unknown as { roleRef: { name: string } }).roleRef.name);
    expect(bound).to.have.members(['svc-components-reader', 'svc-token-reviewer']);
    for (const role of bound) expect(rendered.some((d) => d?.kind === 'ClusterRole' && d.metadata.name === role), role).to.equal(true);
  });
});
