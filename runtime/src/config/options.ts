/**
 * Every runtime option is declared once here: its flag, its env var, its default and its parser.
 * The CLI parser, `--help` and the validated `RuntimeConfig` are all derived from this table.
 */
import os from 'node:os';
import path from 'node:path';

export type OptionKind = 'string' | 'int' | 'port' | 'bool' | 'list' | 'size' | 'duration' | 'enum';

export interface OptionDef {
  /** Long flag without dashes. */
  readonly flag: string;
  readonly env?: string;
  readonly kind: OptionKind;
  readonly description: string;
  readonly default?: string;
  readonly choices?: readonly string[];
  /** Secrets are read from the environment only, never from argv (visible in `ps`). */
  readonly envOnly?: boolean;
}

export const OPTIONS = [
  { flag: 'app-id', env: 'SVC_APP_ID', kind: 'string', description: 'Application id; prefixes state keys and scopes components', default: '' },
  { flag: 'mode', env: 'SVC_MODE', kind: 'enum', choices: ['standalone', 'kubernetes'], description: 'Where components come from: resources paths (standalone) or Component objects of the pod namespace (kubernetes)', default: 'standalone' },
  { flag: 'http-port', env: 'SVC_HTTP_PORT', kind: 'port', description: 'HTTP API port', default: '3500' },
  { flag: 'grpc-port', env: 'SVC_GRPC_PORT', kind: 'port', description: 'gRPC API port (also the Durable Task sidecar protocol)', default: '50001' },
  { flag: 'internal-grpc-port', env: 'SVC_INTERNAL_GRPC_PORT', kind: 'port', description: 'Sidecar-to-sidecar gRPC port: service invocation between apps, and actor and workflow calls routed to the replica that owns the actor; default 50002 in kubernetes mode, a free port standalone (other sidecars learn it from name resolution and the placement lease)', default: '' },
  { flag: 'internal-address', env: 'SVC_INTERNAL_ADDRESS', kind: 'string', description: 'Address the internal gRPC server binds to and other replicas dial (the injector sets the pod IP)', default: '127.0.0.1' },
  { flag: 'placement-lease-ttl', env: 'SVC_PLACEMENT_LEASE_TTL', kind: 'duration', description: 'How long a replica\'s placement lease lives without renewal; a replica silent this long loses its actors to the others', default: '3s' },
  { flag: 'placement-heartbeat-interval', env: 'SVC_PLACEMENT_HEARTBEAT_INTERVAL', kind: 'duration', description: 'How often a replica renews its placement lease and rebalances partitions (must be well under the lease TTL)', default: '1s' },
  { flag: 'grpc-keepalive-time', env: 'SVC_GRPC_KEEPALIVE_TIME', kind: 'duration', description: 'How often svcd pings each client connection of the gRPC API; a client that does not answer within --grpc-keepalive-timeout is disconnected (a workflow worker\'s work goes to other workers)', default: '20s' },
  { flag: 'grpc-keepalive-timeout', env: 'SVC_GRPC_KEEPALIVE_TIMEOUT', kind: 'duration', description: 'How long svcd waits for a gRPC API client to answer a keepalive ping', default: '10s' },
  { flag: 'workflow-task-timeout', env: 'SVC_WORKFLOW_TASK_TIMEOUT', kind: 'duration', description: 'How long a workflow worker may leave an orchestration task unanswered, or its work item stream unread, before svcd hands its work to other workers and offers it nothing more until it answers again (0: no limit)', default: '10s' },
  { flag: 'metrics-port', env: 'SVC_METRICS_PORT', kind: 'port', description: 'Prometheus metrics port (0 disables the metrics server)', default: '9090' },
  { flag: 'listen-address', env: 'SVC_LISTEN_ADDRESS', kind: 'string', description: 'Address the API servers bind to', default: '127.0.0.1' },
  { flag: 'metrics-listen-address', env: 'SVC_METRICS_LISTEN_ADDRESS', kind: 'string', description: 'Address the metrics server binds to (it asks for no API token); default: 127.0.0.1, and the --listen-address in kubernetes mode so Prometheus can scrape the pod', default: '' },
  { flag: 'resources-path', env: 'SVC_RESOURCES_PATH', kind: 'list', description: 'Folder of component YAML files; repeatable (env: comma-separated)', default: '' },
  { flag: 'config', env: 'SVC_CONFIG', kind: 'string', description: 'Configuration resource: a YAML file, or the name of a Configuration in the resources paths (kubernetes mode: in the namespace)', default: '' },
  { flag: 'pluggable-trusted-uids', env: 'SVC_PLUGGABLE_TRUSTED_UIDS', kind: 'string', description: 'Owners of pluggable component sockets svcd uses besides its own user and root: comma-separated uids, or * for any (the default in kubernetes mode, where the folder is the pod\'s own volume)', default: '' },
  { flag: 'pluggable-max-reply-size', env: 'SVC_PLUGGABLE_MAX_REPLY_SIZE', kind: 'size', description: 'Largest reply svcd accepts from a pluggable component (larger: 502 ERR_COMPONENT_REPLY_TOO_LARGE)', default: '16Mi' },
  { flag: 'pluggable-reply-budget', env: 'SVC_PLUGGABLE_REPLY_BUDGET', kind: 'size', description: 'Bytes of pluggable component replies in flight at once, across all components: each call reserves --pluggable-max-reply-size of it while it runs; more calls wait', default: '1Gi' },
  { flag: 'components-sockets-folder', env: 'SVC_COMPONENTS_SOCKETS_FOLDER', kind: 'string', description: 'Folder scanned for pluggable component Unix sockets', default: '/tmp/svc-components-sockets' },
  { flag: 'pluggable-wait-timeout', env: 'SVC_PLUGGABLE_WAIT_TIMEOUT', kind: 'duration', description: 'How long to wait for the socket of a pluggable component a spec names but that was not there at start (default: 10s in kubernetes mode, where component containers start with svcd; 0 in standalone mode, where a type that is neither built in nor a socket fails at once)' },
  { flag: 'pluggable-probe-timeout', env: 'SVC_PLUGGABLE_PROBE_TIMEOUT', kind: 'duration', description: 'Bound on connecting to one pluggable component socket and listing its services by reflection', default: '3s' },
  { flag: 'pluggable-ping-interval', env: 'SVC_PLUGGABLE_PING_INTERVAL', kind: 'duration', description: 'How often svcd pings each pluggable component (health, reconnect and re-Init after a restart)', default: '5s' },
  { flag: 'data-dir', env: 'SVC_DATA_DIR', kind: 'string', description: 'Folder for embedded data (the SQLite state store file)', default: path.join(os.homedir(), '.svc', 'data') },
  { flag: 'log-level', env: 'SVC_LOG_LEVEL', kind: 'enum', choices: ['debug', 'info', 'warn', 'error'], description: 'Log level', default: 'info' },
  { flag: 'log-as-json', env: 'SVC_LOG_AS_JSON', kind: 'bool', description: 'Write logs as JSON lines instead of readable text', default: 'false' },
  { flag: 'api-token', env: 'SVC_API_TOKEN', kind: 'string', envOnly: true, description: 'API token required on every API but health (env only)' },
  { flag: 'invoke-token', env: 'SVC_INVOKE_TOKEN', kind: 'string', envOnly: true, description: 'Secret the sidecars of every app present to each other for service invocation (env only; by default one is created and kept by the name resolution store)' },
  { flag: 'enable-ui', env: 'SVC_ENABLE_UI', kind: 'bool', description: 'Serve the web UI at /ui/ on the HTTP API port (workflow instances, histories, actions; it asks for the API token when one is set)', default: 'true' },
  { flag: 'trace-viewer-url', env: 'SVC_TRACE_VIEWER_URL', kind: 'string', description: 'Address of a trace viewer page with {traceId} where the trace id goes (e.g. http://jaeger:16686/trace/{traceId}): the web UI links each traced workflow instance to its trace', default: '' },
  { flag: 'max-request-size', env: 'SVC_MAX_REQUEST_SIZE', kind: 'size', description: 'Largest accepted request body, and largest answer read from the app (e.g. 4Mi, 512Ki, 1048576)', default: '4Mi' },
  { flag: 'component-init-timeout', env: 'SVC_COMPONENT_INIT_TIMEOUT', kind: 'duration', description: 'Default init timeout per component when spec.initTimeout is unset', default: '5s' },
  { flag: 'app-port', env: 'SVC_APP_PORT', kind: 'port', description: 'Port of the app on 127.0.0.1 (actor callbacks, /dapr/config); 0 means no app channel', default: '0' },
  { flag: 'app-protocol', env: 'SVC_APP_PROTOCOL', kind: 'enum', choices: ['http', 'grpc'], description: 'How svcd calls the app: http, or grpc (the AppCallback service: subscriptions, topic and binding events; actors need http)', default: 'http' },
  { flag: 'enable-app-health-check', env: 'SVC_ENABLE_APP_HEALTH_CHECK', kind: 'bool', description: 'Probe the app and hold pub/sub and input binding deliveries while it is unhealthy', default: 'false' },
  { flag: 'app-health-check-path', env: 'SVC_APP_HEALTH_CHECK_PATH', kind: 'string', description: 'Path svcd GETs on an HTTP app to probe it (a gRPC app is asked AppCallbackHealthCheck)', default: '/healthz' },
  { flag: 'app-health-probe-interval', env: 'SVC_APP_HEALTH_PROBE_INTERVAL', kind: 'duration', description: 'Time between app health probes', default: '5s' },
  { flag: 'app-health-probe-timeout', env: 'SVC_APP_HEALTH_PROBE_TIMEOUT', kind: 'duration', description: 'How long a health probe may take before it counts as a failure', default: '500ms' },
  { flag: 'app-health-threshold', env: 'SVC_APP_HEALTH_THRESHOLD', kind: 'string', description: 'Failed probes in a row after which the app is unhealthy (one success makes it healthy again)', default: '3' },
  { flag: 'actor-idle-timeout', env: 'SVC_ACTOR_IDLE_TIMEOUT', kind: 'duration', description: 'Idle time after which an actor is deactivated (an app may set its own in /dapr/config)', default: '60m' },
  { flag: 'namespace', env: 'NAMESPACE', kind: 'string', description: 'Namespace of this pod: kubernetes mode reads its Components, both modes skip Components of other namespaces (the injector sets it from the downward API)', default: '' },
  { flag: 'invoke-token-file', env: 'SVC_INVOKE_TOKEN_FILE', kind: 'string', description: 'Kubernetes mode: the projected ServiceAccount token (audience svc.io/invoke) svcd presents to the sidecars it calls, re-read when the kubelet rotates it (the injector mounts it here)', default: '/var/run/secrets/svc.io/invoke/token' },
  { flag: 'kubeconfig', env: 'KUBECONFIG', kind: 'string', description: 'kubeconfig for kubernetes mode outside a pod (tests); in a pod the service account is used', default: '' },
  { flag: 'shutdown-grace-period', env: 'SVC_SHUTDOWN_GRACE_PERIOD', kind: 'duration', description: 'How long a graceful stop waits for in-flight work', default: '5s' },
] as const satisfies readonly OptionDef[];

export type OptionFlag = (typeof OPTIONS)[number]['flag'];
