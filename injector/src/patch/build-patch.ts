/**
 * The pure patch builder: (pod, Components of its namespace, injector settings) → one JSON patch or a denial
 * reason. No I/O: the handler fetches Components and the filter has already decided the pod is ours.
 */
import type { V1Container, V1EnvVar, V1Pod, V1Volume } from '@kubernetes/client-node';
import { parseSidecarAnnotations } from '../annotations/sidecar-annotations.js';
import { parseAppId } from '../annotations/parsers.js';
import type { SidecarAnnotations } from '../annotations/table.js';
import { selectComponentContainers, type ComponentObject } from '../components/component-containers.js';
import type { ContainerPolicyLevel } from '../components/container-policy.js';
import { envOps, volumeMountOps, withSocketPlumbing } from './container-ops.js';
import { add, pointerSegment, type JsonPatchOp } from './json-patch.js';
import {
  APP_ID_LABEL,
  DATA_VOLUME_NAME,
  INJECTED_LABEL,
  INVOKE_TOKEN_AUDIENCE,
  INVOKE_TOKEN_SECONDS,
  INVOKE_TOKEN_VOLUME_NAME,
  SOCKETS_FOLDER_ENV_NAMES,
  SOCKETS_VOLUME_NAME,
} from './names.js';
import { apiTokenEnv, buildSidecarContainer } from './sidecar-container.js';

export interface InjectorSettings {
  readonly sidecarImage: string;
  readonly sidecarImagePullPolicy: string;
  /** Socket folder used when the pod does not set svc.io/components-sockets-folder. */
  readonly socketsFolder: string;
  /** What component containers may ask for (container-policy.ts). */
  readonly componentContainerPolicy: ContainerPolicyLevel;
}

export interface PatchRequest {
  readonly pod: V1Pod;
  /** Components of the pod's namespace; `undefined` when the injector has no Kubernetes API access. */
  readonly components: readonly ComponentObject[] | undefined;
  readonly settings: InjectorSettings;
  /** The request came from a caller the injector verified as the API server (client certificate). */
  readonly callerVerified: boolean;
}

export type PatchOutcome =
  | { readonly kind: 'patch'; readonly appId: string; readonly patch: JsonPatchOp[]; readonly warnings: string[] }
  | { readonly kind: 'deny'; readonly reason: string };

export const NO_API_ACCESS_WARNING =
  'svc.io/inject-pluggable-components is "true" but svc-injector has no Kubernetes API access: no component containers were injected';

function resolveAppId(pod: V1Pod, a: SidecarAnnotations): string | { problem: string } {
  if (a.appId !== undefined) return a.appId;
  const name = pod.metadata?.name;
  if (!name) return { problem: 'annotation svc.io/app-id is required (pods created by controllers have no name yet at admission)' };
  try {
    return parseAppId(name);
  } catch (err) {
    return { problem: `the pod name cannot be the app id: ${(err as Error).message}; set svc.io/app-id` };
  }
}

interface Plan {
  readonly appId: string;
  readonly annotations: SidecarAnnotations;
  readonly injected: readonly V1Container[];
  readonly componentIndexes: readonly number[];
  readonly warnings: string[];
}

/** Everything that can deny the pod is decided here, before a single op is emitted: no half patch. */
function plan(req: PatchRequest): Plan | { deny: string } {
  const { pod } = req;
  const parsed = parseSidecarAnnotations(pod.metadata?.annotations);
  const problems = [...parsed.problems];
  const a = parsed.values;
  const appId = resolveAppId(pod, a);
  if (typeof appId !== 'string') problems.push(appId.problem);
  const warnings: string[] = [];
  const containers = pod.spec?.containers ?? [];

  let injected: readonly V1Container[] = [];
  if (a.injectPluggableComponents && typeof appId === 'string') {
    if (req.components === undefined) warnings.push(NO_API_ACCESS_WARNING);
    else {
      const selection = selectComponentContainers(req.components, appId, { policy: req.settings.componentContainerPolicy, literalEnv: req.callerVerified });
      warnings.push(...selection.warnings);
      problems.push(...selection.problems);
      injected = selection.containers;
      for (const c of injected) {
        if (containers.some((existing) => existing.name === c.name)) problems.push(`the pod already has a container named "${c.name}", which a component would inject`);
      }
    }
  }

  const componentIndexes: number[] = [];
  for (const name of a.pluggableComponents) {
    const index = containers.findIndex((c) => c.name === name);
    if (index < 0) problems.push(`annotation svc.io/pluggable-components names "${name}", which is not a container of this pod`);
    else componentIndexes.push(index);
  }
  const socketsFolder = a.socketsFolder ?? req.settings.socketsFolder;
  for (const index of componentIndexes) {
    const clash = containers[index]?.volumeMounts?.find((m) => m.mountPath === socketsFolder && m.name !== SOCKETS_VOLUME_NAME);
    if (clash) problems.push(`container "${containers[index]?.name}" already mounts volume "${clash.name}" at ${socketsFolder}; remove that mount (the injector adds the shared socket volume) or set svc.io/components-sockets-folder`);
  }
  for (const reserved of [DATA_VOLUME_NAME, INVOKE_TOKEN_VOLUME_NAME, SOCKETS_VOLUME_NAME]) {
    if ((pod.spec?.volumes ?? []).some((v) => v.name === reserved)) problems.push(`the pod already has a volume named "${reserved}", a name the injector reserves`);
  }
  if (problems.length > 0 || typeof appId !== 'string') return { deny: `svc-injector cannot inject this pod: ${problems.join('; ')}` };
  return { appId, annotations: a, injected, componentIndexes, warnings };
}

/**
 * New pod volumes: svcd data, its invocation token, the socket folder when there are components, emptyDirs for
 * injected mounts.
 */
function newVolumes(pod: V1Pod, p: Plan, pluggable: boolean): V1Volume[] {
  const existing = new Set((pod.spec?.volumes ?? []).map((v) => v.name));
  const invokeToken = { audience: INVOKE_TOKEN_AUDIENCE, expirationSeconds: INVOKE_TOKEN_SECONDS, path: 'token' };
  const volumes: V1Volume[] = [
    { name: DATA_VOLUME_NAME, emptyDir: {} },
    { name: INVOKE_TOKEN_VOLUME_NAME, projected: { sources: [{ serviceAccountToken: invokeToken }] } },
  ];
  if (pluggable) volumes.push({ name: SOCKETS_VOLUME_NAME, emptyDir: {} });
  for (const c of p.injected) {
    for (const m of c.volumeMounts ?? []) {
      if (existing.has(m.name) || volumes.some((v) => v.name === m.name)) continue;
      volumes.push({ name: m.name, emptyDir: {} });
    }
  }
  return volumes;
}

function volumeOps(pod: V1Pod, volumes: readonly V1Volume[]): JsonPatchOp[] {
  // A pod without volumes gets ONE array: several `add /spec/volumes` would replace each other (the reference defect).
  if ((pod.spec?.volumes ?? []).length === 0) return [add('/spec/volumes', volumes)];
  return volumes.map((v) => add('/spec/volumes/-', v));
}

function labelOps(pod: V1Pod, appId: string): JsonPatchOp[] {
  const labels = { [INJECTED_LABEL]: 'true', [APP_ID_LABEL]: appId };
  if (!pod.metadata?.labels) return [add('/metadata/labels', labels)];
  return Object.entries(labels).map(([k, v]) => add(`/metadata/labels/${pointerSegment(k)}`, v));
}

function appEnv(a: SidecarAnnotations): V1EnvVar[] {
  const env: V1EnvVar[] = [
    { name: 'SVC_HTTP_PORT', value: String(a.httpPort) },
    { name: 'SVC_GRPC_PORT', value: String(a.grpcPort) },
    // Dapr SDKs find the sidecar through these.
    { name: 'DAPR_HTTP_PORT', value: String(a.httpPort) },
    { name: 'DAPR_GRPC_PORT', value: String(a.grpcPort) },
  ];
  if (a.apiTokenSecret !== undefined) env.push(apiTokenEnv('SVC_API_TOKEN', a.apiTokenSecret), apiTokenEnv('DAPR_API_TOKEN', a.apiTokenSecret));
  return env;
}

export function buildPodPatch(req: PatchRequest): PatchOutcome {
  const p = plan(req);
  if ('deny' in p) return { kind: 'deny', reason: p.deny };
  const { pod } = req;
  const a = p.annotations;
  const containers = pod.spec?.containers ?? [];
  const pluggable = p.injected.length > 0 || p.componentIndexes.length > 0;
  const socketsFolder = a.socketsFolder ?? req.settings.socketsFolder;
  const socketsEnv: V1EnvVar[] = pluggable ? SOCKETS_FOLDER_ENV_NAMES.map((name) => ({ name, value: socketsFolder })) : [];
  const socketMount = { name: SOCKETS_VOLUME_NAME, mountPath: socketsFolder };

  const ops: JsonPatchOp[] = [...labelOps(pod, p.appId), ...volumeOps(pod, newVolumes(pod, p, pluggable))];
  containers.forEach((container, index) => {
    if (p.componentIndexes.includes(index)) ops.push(...envOps(index, container, socketsEnv), ...volumeMountOps(index, container, socketMount));
    else ops.push(...envOps(index, container, appEnv(a)));
  });
  for (const c of p.injected) ops.push(add('/spec/containers/-', withSocketPlumbing(c, socketsEnv, socketMount)));
  const sidecar = buildSidecarContainer({
    appId: p.appId,
    annotations: a,
    image: a.sidecarImage ?? req.settings.sidecarImage,
    imagePullPolicy: req.settings.sidecarImagePullPolicy,
    socketsFolder: pluggable ? socketsFolder : undefined,
    socketsEnv,
  });
  ops.push(add('/spec/containers/-', sidecar));
  return { kind: 'patch', appId: p.appId, patch: ops, warnings: p.warnings };
}
