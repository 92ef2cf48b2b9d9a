/**
 * Every pod annotation the injector reads, declared ONCE: key, config field, parser, default and meaning.
 * `SidecarAnnotations` (the parsed config type), the parser, `--help`-style docs and the completeness test are
 * all derived from this table.
 */
import {
  oneOf,
  optional,
  parseAbsolutePath,
  parseAppId,
  parseBoolean,
  parseByteSize,
  parseDuration,
  parseEnvList,
  parseList,
  parseNonNegativeInt,
  parsePort,
  parsePositiveInt,
  parseQuantity,
  parseText,
} from './parsers.js';

export interface AnnotationDef<F extends string, T> {
  readonly key: `svc.io/${string}`;
  readonly field: F;
  readonly parse: (raw: string) => T;
  readonly default: T;
  readonly description: string;
}

function annotation<F extends string, T>(def: AnnotationDef<F, T>): AnnotationDef<F, T> {
  return def;
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

export const ANNOTATIONS = [
  annotation({ key: 'svc.io/enabled', field: 'enabled', parse: parseBoolean, default: false, description: 'Inject the svcd sidecar ("true")' }),
  annotation({ key: 'svc.io/app-id', field: 'appId', parse: optional(parseAppId), default: undefined, description: 'Application id (SVC_APP_ID); defaults to the pod name when the pod has one' }),
  annotation({ key: 'svc.io/app-port', field: 'appPort', parse: optional(parsePort), default: undefined, description: 'Port the application listens on (SVC_APP_PORT on svcd)' }),
  annotation({ key: 'svc.io/app-protocol', field: 'appProtocol', parse: oneOf(['http', 'grpc'] as const), default: 'http', description: 'How svcd calls the application: http, or grpc (the AppCallback service) (SVC_APP_PROTOCOL on svcd)' }),
  annotation({ key: 'svc.io/enable-app-health-check', field: 'enableAppHealthCheck', parse: parseBoolean, default: false, description: 'Probe the application and hold pub/sub and input binding deliveries while it is unhealthy (SVC_ENABLE_APP_HEALTH_CHECK on svcd)' }),
  annotation({ key: 'svc.io/app-health-check-path', field: 'appHealthCheckPath', parse: optional(parseText), default: undefined, description: 'Path svcd GETs to probe an HTTP application (SVC_APP_HEALTH_CHECK_PATH; svcd default /healthz)' }),
  annotation({ key: 'svc.io/app-health-probe-interval', field: 'appHealthProbeInterval', parse: optional(parseDuration), default: undefined, description: 'Time between application health probes (SVC_APP_HEALTH_PROBE_INTERVAL; svcd default 5s)' }),
  annotation({ key: 'svc.io/app-health-probe-timeout', field: 'appHealthProbeTimeout', parse: optional(parseDuration), default: undefined, description: 'How long a probe may take (SVC_APP_HEALTH_PROBE_TIMEOUT; svcd default 500ms)' }),
  annotation({ key: 'svc.io/app-health-threshold', field: 'appHealthThreshold', parse: optional(parsePositiveInt), default: undefined, description: 'Failed probes in a row that make the application unhealthy (SVC_APP_HEALTH_THRESHOLD; svcd default 3)' }),
  annotation({ key: 'svc.io/config', field: 'config', parse: optional(parseText), default: undefined, description: 'Name of a configuration resource, passed to svcd as SVC_CONFIG' }),
  annotation({ key: 'svc.io/log-level', field: 'logLevel', parse: oneOf(LOG_LEVELS), default: 'info', description: 'svcd log level: debug, info, warn or error' }),
  annotation({ key: 'svc.io/log-as-json', field: 'logAsJson', parse: parseBoolean, default: true, description: 'svcd writes JSON log lines' }),
  annotation({ key: 'svc.io/enable-metrics', field: 'enableMetrics', parse: parseBoolean, default: true, description: 'Serve Prometheus metrics on the metrics port' }),
  annotation({ key: 'svc.io/metrics-port', field: 'metricsPort', parse: parsePort, default: 9090, description: 'svcd metrics port' }),
  annotation({ key: 'svc.io/http-port', field: 'httpPort', parse: parsePort, default: 3500, description: 'svcd HTTP API port (also SVC_HTTP_PORT/DAPR_HTTP_PORT in app containers)' }),
  annotation({ key: 'svc.io/grpc-port', field: 'grpcPort', parse: parsePort, default: 50001, description: 'svcd gRPC API port (also SVC_GRPC_PORT/DAPR_GRPC_PORT in app containers)' }),
  annotation({ key: 'svc.io/internal-grpc-port', field: 'internalGrpcPort', parse: parsePort, default: 50002, description: 'svcd sidecar-to-sidecar port: gRPC between replicas, streaming calls for service invocation' }),
  annotation({ key: 'svc.io/sidecar-listen-address', field: 'listenAddress', parse: parseText, default: '0.0.0.0', description: 'Address svcd binds to; the kubelet probes need the pod IP, so 127.0.0.1 disables probes' }),
  annotation({ key: 'svc.io/sidecar-image', field: 'sidecarImage', parse: optional(parseText), default: undefined, description: 'svcd image for this pod instead of the injector default' }),
  annotation({ key: 'svc.io/sidecar-cpu-request', field: 'cpuRequest', parse: optional(parseQuantity), default: undefined, description: 'svcd CPU request' }),
  annotation({ key: 'svc.io/sidecar-cpu-limit', field: 'cpuLimit', parse: optional(parseQuantity), default: undefined, description: 'svcd CPU limit' }),
  annotation({ key: 'svc.io/sidecar-memory-request', field: 'memoryRequest', parse: optional(parseQuantity), default: undefined, description: 'svcd memory request' }),
  annotation({ key: 'svc.io/sidecar-memory-limit', field: 'memoryLimit', parse: optional(parseQuantity), default: undefined, description: 'svcd memory limit' }),
  annotation({ key: 'svc.io/sidecar-liveness-probe-delay-seconds', field: 'livenessDelaySeconds', parse: parseNonNegativeInt, default: 15, description: 'Liveness probe initialDelaySeconds' }),
  annotation({ key: 'svc.io/sidecar-liveness-probe-timeout-seconds', field: 'livenessTimeoutSeconds', parse: parsePositiveInt, default: 3, description: 'Liveness probe timeoutSeconds' }),
  annotation({ key: 'svc.io/sidecar-liveness-probe-period-seconds', field: 'livenessPeriodSeconds', parse: parsePositiveInt, default: 10, description: 'Liveness probe periodSeconds' }),
  annotation({ key: 'svc.io/sidecar-liveness-probe-threshold', field: 'livenessThreshold', parse: parsePositiveInt, default: 6, description: 'Liveness probe failureThreshold' }),
  annotation({ key: 'svc.io/sidecar-readiness-probe-delay-seconds', field: 'readinessDelaySeconds', parse: parseNonNegativeInt, default: 1, description: 'Readiness probe initialDelaySeconds' }),
  annotation({ key: 'svc.io/sidecar-readiness-probe-timeout-seconds', field: 'readinessTimeoutSeconds', parse: parsePositiveInt, default: 3, description: 'Readiness probe timeoutSeconds' }),
  annotation({ key: 'svc.io/sidecar-readiness-probe-period-seconds', field: 'readinessPeriodSeconds', parse: parsePositiveInt, default: 3, description: 'Readiness probe periodSeconds' }),
  annotation({ key: 'svc.io/sidecar-readiness-probe-threshold', field: 'readinessThreshold', parse: parsePositiveInt, default: 3, description: 'Readiness probe failureThreshold' }),
  annotation({ key: 'svc.io/api-token-secret', field: 'apiTokenSecret', parse: optional(parseText), default: undefined, description: 'Secret whose key "token" becomes SVC_API_TOKEN in svcd and SVC_API_TOKEN/DAPR_API_TOKEN in app containers' }),
  annotation({ key: 'svc.io/env', field: 'env', parse: parseEnvList, default: [], description: 'Extra svcd env vars, "K=V,K2=V2"' }),
  annotation({ key: 'svc.io/max-request-size', field: 'maxRequestSize', parse: optional(parseByteSize), default: undefined, description: 'Largest request body svcd accepts (SVC_MAX_REQUEST_SIZE), e.g. 4Mi' }),
  annotation({ key: 'svc.io/inject-pluggable-components', field: 'injectPluggableComponents', parse: parseBoolean, default: false, description: 'Inject the containers of in-scope Components that carry svc.io/component-container' }),
  annotation({ key: 'svc.io/pluggable-components', field: 'pluggableComponents', parse: parseList, default: [], description: 'Comma-separated names of existing containers that are pluggable components (socket volume and env, no app env)' }),
  annotation({ key: 'svc.io/components-sockets-folder', field: 'socketsFolder', parse: optional(parseAbsolutePath), default: undefined, description: 'Mount path of the shared socket volume (SVC_COMPONENTS_SOCKETS_FOLDER); default from the injector' }),
] as const;

type AnyAnnotation = (typeof ANNOTATIONS)[number];

/** The parsed pod annotations: one field per table row, typed by its parser. */
export type SidecarAnnotations = { -readonly [A in AnyAnnotation as A['field']]: A['default'] | ReturnType<A['parse']> };

/** The annotation on a Component (not a pod): the JSON container to inject for it. */
export const COMPONENT_CONTAINER_ANNOTATION = 'svc.io/component-container';
