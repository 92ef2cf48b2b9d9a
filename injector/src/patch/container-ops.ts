import type { V1Container, V1EnvVar, V1VolumeMount } from '@kubernetes/client-node';
import { add, type JsonPatchOp } from './json-patch.js';

/** Env vars the container does not define yet (a user's own value always wins). */
export function missingEnv(container: V1Container, vars: readonly V1EnvVar[]): V1EnvVar[] {
  const defined = new Set((container.env ?? []).map((e) => e.name));
  return vars.filter((v) => !defined.has(v.name));
}

/** Ops appending env vars to the container at `index`: the whole list when it has none, else one op per var. */
export function envOps(index: number, container: V1Container, vars: readonly V1EnvVar[]): JsonPatchOp[] {
  const missing = missingEnv(container, vars);
  if (missing.length === 0) return [];
  const base = `/spec/containers/${index}/env`;
  return container.env === undefined ? [add(base, missing)] : missing.map((v) => add(`${base}/-`, v));
}

export function volumeMountOps(index: number, container: V1Container, mount: V1VolumeMount): JsonPatchOp[] {
  if ((container.volumeMounts ?? []).some((m) => m.name === mount.name)) return [];
  const base = `/spec/containers/${index}/volumeMounts`;
  return container.volumeMounts === undefined ? [add(base, [mount])] : [add(`${base}/-`, mount)];
}

/** An injected container with the socket env and mount merged in (its own definitions kept). */
export function withSocketPlumbing(container: V1Container, env: readonly V1EnvVar[], mount: V1VolumeMount): V1Container {
  return {
    ...container,
    env: [...(container.env ?? []), ...missingEnv(container, env)],
    volumeMounts: [...(container.volumeMounts ?? []).filter((m) => m.name !== mount.name), mount],
  };
}
