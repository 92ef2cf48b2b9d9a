import type { V1Container, V1EnvVar, V1Probe, V1ResourceRequirements, V1VolumeMount } from '@kubernetes/client-node';
import type { SidecarAnnotations } from '../annotations/table.js';
import { DATA_MOUNT_PATH, DATA_VOLUME_NAME, HEALTH_PATH, INVOKE_TOKEN_MOUNT_PATH, INVOKE_TOKEN_VOLUME_NAME, SIDECAR_CONTAINER_NAME, SOCKETS_VOLUME_NAME } from './names.js';

export interface SidecarContainerInput {
  readonly appId: string;
  readonly annotations: SidecarAnnotations;
  readonly image: string;
  readonly imagePullPolicy: string;
  /** Set when the pod has pluggable components: the socket folder mounted in svcd. */
  readonly socketsFolder: string | undefined;
  readonly socketsEnv: readonly V1EnvVar[];
}

function probe(a: SidecarAnnotations, kind: 'liveness' | 'readiness'): V1Probe {
  const live = kind === 'liveness';
  return {
    httpGet: { path: HEALTH_PATH, port: a.httpPort },
    initialDelaySeconds: live ? a.livenessDelaySeconds : a.readinessDelaySeconds,
    timeoutSeconds: live ? a.livenessTimeoutSeconds : a.readinessTimeoutSeconds,
    periodSeconds: live ? a.livenessPeriodSeconds : a.readinessPeriodSeconds,
    failureThreshold: live ? a.livenessThreshold : a.readinessThreshold,
  };
}

function resources(a: SidecarAnnotations): V1ResourceRequirements | undefined {
  const requests: Record<string, string> = {};
  const limits: Record<string, string> = {};
  if (a.cpuRequest) requests.cpu = a.cpuRequest;
  if (a.memoryRequest) requests.memory = a.memoryRequest;
  if (a.cpuLimit) limits.cpu = a.cpuLimit;
  if (a.memoryLimit) limits.memory = a.memoryLimit;
  if (Object.keys(requests).length === 0 && Object.keys(limits).length === 0) return undefined;
  return { ...(Object.keys(requests).length ? { requests } : {}), ...(Object.keys(limits).length ? { limits } : {}) };
}

/** svcd is configured through env only (every svcd option has one), so the image entrypoint stays as built. */
function sidecarEnv(input: SidecarContainerInput): V1EnvVar[] {
  const a = input.annotations;
  const env: V1EnvVar[] = [
    { name: 'SVC_APP_ID', value: input.appId },
    { name: 'SVC_MODE', value: 'kubernetes' },
    { name: 'SVC_HTTP_PORT', value: String(a.httpPort) },
    { name: 'SVC_GRPC_PORT', value: String(a.grpcPort) },
    { name: 'SVC_INTERNAL_GRPC_PORT', value: String(a.internalGrpcPort) },
    // Other replicas of the app dial this pod's IP on the internal port (actor and workflow calls routed to the
    // replica that owns the actor); svcd binds its internal server there.
    { name: 'SVC_INTERNAL_ADDRESS', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
    { name: 'SVC_METRICS_PORT', value: a.enableMetrics ? String(a.metricsPort) : '0' },
    { name: 'SVC_LISTEN_ADDRESS', value: a.listenAddress },
    { name: 'SVC_LOG_LEVEL', value: a.logLevel },
    { name: 'SVC_LOG_AS_JSON', value: String(a.logAsJson) },
    { name: 'SVC_DATA_DIR', value: `${DATA_MOUNT_PATH}/data` },
    { name: 'NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
  ];
  if (a.appPort !== undefined) env.push({ name: 'SVC_APP_PORT', value: String(a.appPort) });
  if (a.appProtocol !== 'http') env.push({ name: 'SVC_APP_PROTOCOL', value: a.appProtocol });
  if (a.enableAppHealthCheck) env.push({ name: 'SVC_ENABLE_APP_HEALTH_CHECK', value: 'true' });
  if (a.appHealthCheckPath !== undefined) env.push({ name: 'SVC_APP_HEALTH_CHECK_PATH', value: a.appHealthCheckPath });
  if (a.appHealthProbeInterval !== undefined) env.push({ name: 'SVC_APP_HEALTH_PROBE_INTERVAL', value: a.appHealthProbeInterval });
  if (a.appHealthProbeTimeout !== undefined) env.push({ name: 'SVC_APP_HEALTH_PROBE_TIMEOUT', value: a.appHealthProbeTimeout });
  if (a.appHealthThreshold !== undefined) env.push({ name: 'SVC_APP_HEALTH_THRESHOLD', value: String(a.appHealthThreshold) });
  if (a.config !== undefined) env.push({ name: 'SVC_CONFIG', value: a.config });
  if (a.maxRequestSize !== undefined) env.push({ name: 'SVC_MAX_REQUEST_SIZE', value: a.maxRequestSize });
  if (a.apiTokenSecret !== undefined) env.push(apiTokenEnv('SVC_API_TOKEN', a.apiTokenSecret));
  env.push(...input.socketsEnv);
  // svc.io/env comes last and wins over what the injector chose for the same name.
  for (const extra of a.env) {
    const i = env.findIndex((e) => e.name === extra.name);
    if (i >= 0) env.splice(i, 1);
    env.push({ name: extra.name, value: extra.value });
  }
  return env;
}

export function apiTokenEnv(name: string, secretName: string): V1EnvVar {
  return { name, valueFrom: { secretKeyRef: { name: secretName, key: 'token' } } };
}

export function buildSidecarContainer(input: SidecarContainerInput): V1Container {
  const a = input.annotations;
  const ports = [
    { name: 'svc-http', containerPort: a.httpPort, protocol: 'TCP' },
    { name: 'svc-grpc', containerPort: a.grpcPort, protocol: 'TCP' },
    { name: 'svc-internal', containerPort: a.internalGrpcPort, protocol: 'TCP' },
    ...(a.enableMetrics ? [{ name: 'svc-metrics', containerPort: a.metricsPort, protocol: 'TCP' }] : []),
  ];
  const volumeMounts: V1VolumeMount[] = [
    { name: DATA_VOLUME_NAME, mountPath: DATA_MOUNT_PATH },
    { name: INVOKE_TOKEN_VOLUME_NAME, mountPath: INVOKE_TOKEN_MOUNT_PATH, readOnly: true },
  ];
  if (input.socketsFolder !== undefined) volumeMounts.push({ name: SOCKETS_VOLUME_NAME, mountPath: input.socketsFolder });
  const limits = resources(a);
  return {
    name: SIDECAR_CONTAINER_NAME,
    image: input.image,
    imagePullPolicy: input.imagePullPolicy,
    env: sidecarEnv(input),
    ports,
    readinessProbe: probe(a, 'readiness'),
    livenessProbe: probe(a, 'liveness'),
    ...(limits ? { resources: limits } : {}),
    volumeMounts,
    securityContext: {
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    },
    terminationMessagePolicy: 'FallbackToLogsOnError',
  };
}
