/** Test helpers: pods to feed the builder, and the check that a patched pod is one the API server would accept. */
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { expect } from 'chai';
import fastJsonPatch from 'fast-json-patch';
import { Pod } from 'kubernetes-models/v1/Pod';
import type { JsonPatchOp } from '../../src/patch/json-patch.js';

export function makePod(opts: { annotations?: Record<string, string>; containers?: V1Container[]; name?: string } & Partial<V1Pod['spec']> = {}): V1Pod {
  const { annotations, containers, name, ...spec } = opts;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { ...(name ? { name } : { generateName: 'myapp-7d9f-' }), namespace: 'shop', annotations: { 'svc.io/enabled': 'true', 'svc.io/app-id': 'myapp', ...annotations } },
    spec: { containers: containers ?? [{ name: 'app', image: 'example/app:1' }], ...spec },
  };
}

/** Structural rules the OpenAPI schema cannot express but the API server enforces. */
function assertPodConsistent(pod: V1Pod): void {
  const spec = pod.spec!;
  const all = [...spec.containers, ...(spec.initContainers ?? [])];
  const names = all.map((c) => c.name);
  expect(new Set(names).size, `duplicate container names: ${names.join(',')}`).to.equal(names.length);
  const volumes = (spec.volumes ?? []).map((v) => v.name);
  expect(new Set(volumes).size, `duplicate volume names: ${volumes.join(',')}`).to.equal(volumes.length);
  for (const c of all) {
    const env = (c.env ?? []).map((e) => e.name);
    expect(new Set(env).size, `duplicate env in ${c.name}: ${env.join(',')}`).to.equal(env.length);
    const ports = (c.ports ?? []).map((p) => p.name).filter(Boolean);
    expect(new Set(ports).size, `duplicate port names in ${c.name}`).to.equal(ports.length);
    for (const p of ports) expect(p!.length, `port name ${p} too long`).to.be.at.most(15);
    const paths = (c.volumeMounts ?? []).map((m) => m.mountPath);
    expect(new Set(paths).size, `duplicate mount paths in ${c.name}`).to.equal(paths.length);
    for (const m of c.volumeMounts ?? []) expect(volumes, `${c.name} mounts unknown volume ${m.name}`).to.include(m.name);
  }
}

/** Applies the patch as the API server would (RFC 6902) and validates the result against the Pod schema. */
export function applyAndValidate(pod: V1Pod, patch: readonly JsonPatchOp[]): V1Pod {
  const errors = fastJsonPatch.validate([...patch] as fastJsonPatch.Operation[], pod);
  expect(errors, `invalid patch: ${String(errors)}`).to.equal(undefined);
  const patched = fastJsonPatch.applyPatch(structuredClone(pod), [...patch] as fastJsonPatch.Operation[], true, false).newDocument;
  new Pod(patched as ConstructorParameters<typeof Pod>[0]).validate();
  assertPodConsistent(patched);
  return patched;
}

export function container(pod: V1Pod, name: string): V1Container {
  const c = pod.spec?.containers.find((x) => x.name === name);
  expect(c, `container ${name}`).to.not.equal(undefined);
  return c!;
}

export function envOf(c: V1Container): Record<string, string | undefined> {
  return Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value ?? (e.valueFrom ? JSON.stringify(e.valueFrom) : undefined)]));
}
