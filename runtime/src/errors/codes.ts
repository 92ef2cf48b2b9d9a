import { status as GrpcStatus } from '@grpc/grpc-js';

/** One catalogue of error codes, each with its HTTP and gRPC status. Compare errors by code, never by message. */
export const ERROR_CODES = {
  // Request shape and transport
  ERR_MALFORMED_REQUEST: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_BODY_READ: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_BODY_TOO_LARGE: { http: 413, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  ERR_UNAUTHORIZED: { http: 401, grpc: GrpcStatus.UNAUTHENTICATED },
  ERR_NOT_FOUND: { http: 404, grpc: GrpcStatus.UNIMPLEMENTED },
  ERR_METHOD_NOT_ALLOWED: { http: 405, grpc: GrpcStatus.UNIMPLEMENTED },
  ERR_HEALTH_NOT_READY: { http: 500, grpc: GrpcStatus.UNAVAILABLE },
  ERR_OUTBOUND_HEALTH_NOT_READY: { http: 500, grpc: GrpcStatus.UNAVAILABLE },
  ERROR: { http: 500, grpc: GrpcStatus.INTERNAL },

  // State API
  ERR_STATE_STORE_NOT_CONFIGURED: { http: 500, grpc: GrpcStatus.FAILED_PRECONDITION },
  ERR_STATE_STORE_NOT_FOUND: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_STATE_STORE_NOT_SUPPORTED: { http: 500, grpc: GrpcStatus.UNIMPLEMENTED },
  ERR_STATE_STORE_TOO_MANY_TRANSACTIONS: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_STATE_TTL_NOT_SUPPORTED: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_NOT_SUPPORTED_STATE_OPERATION: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_STATE_GET: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_STATE_SAVE: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_STATE_DELETE: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_STATE_BULK_GET: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_STATE_TRANSACTION: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_STATE_ETAG_MISMATCH: { http: 409, grpc: GrpcStatus.ABORTED },
  ERR_STATE_ETAG_INVALID: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  // An embedded store's file is held by another process (svcd opens SQLite exclusively: one host only)
  ERR_STATE_STORE_LOCKED: { http: 500, grpc: GrpcStatus.FAILED_PRECONDITION },

  // Components
  ERR_COMPONENT_SPEC_INVALID: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_COMPONENT_DUPLICATE: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_COMPONENT_TYPE_UNKNOWN: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_COMPONENT_INIT: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_COMPONENT_INIT_TIMEOUT: { http: 500, grpc: GrpcStatus.DEADLINE_EXCEEDED },
  ERR_COMPONENT_UNAVAILABLE: { http: 500, grpc: GrpcStatus.UNAVAILABLE },
  ERR_PLUGGABLE_SOCKET_NOT_FOUND: { http: 500, grpc: GrpcStatus.FAILED_PRECONDITION },
  ERR_PLUGGABLE_DISCOVERY: { http: 500, grpc: GrpcStatus.UNAVAILABLE },
  ERR_COMPONENT_REPLY_TOO_LARGE: { http: 502, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  ERR_PLUGGABLE_SOCKET_UNTRUSTED: { http: 500, grpc: GrpcStatus.FAILED_PRECONDITION },

  // Workflows (HTTP statuses as the reference engine; see docs/workflows.md)
  ERR_ACTOR_RUNTIME_NOT_FOUND: { http: 500, grpc: GrpcStatus.FAILED_PRECONDITION },
  ERR_START_WORKFLOW: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_GET_WORKFLOW: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_WORKFLOW_NAME_MISSING: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_WORKFLOW_ALREADY_EXISTS: { http: 409, grpc: GrpcStatus.ALREADY_EXISTS },
  ERR_INSTANCE_ID_PROVIDED_MISSING: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_INSTANCE_ID_INVALID: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_INSTANCE_ID_TOO_LONG: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_INSTANCE_ID_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  ERR_WORKFLOW_COMPONENT_NOT_FOUND: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_TERMINATE_WORKFLOW: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_WORKFLOW_EVENT_NAME_MISSING: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_RAISE_EVENT_WORKFLOW: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_PAUSE_WORKFLOW: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_RESUME_WORKFLOW: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_PURGE_WORKFLOW: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_PURGE_WORKFLOW_NOT_COMPLETED: { http: 409, grpc: GrpcStatus.FAILED_PRECONDITION },
  ERR_RERUN_WORKFLOW: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_RERUN_WORKFLOW_NOT_COMPLETED: { http: 409, grpc: GrpcStatus.FAILED_PRECONDITION },
  ERR_RERUN_EVENT_INVALID: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_WORKFLOW_STATE_CORRUPT: { http: 500, grpc: GrpcStatus.DATA_LOSS },

  // Actors (ERR_ACTOR_RUNTIME_NOT_FOUND is listed with the workflow codes)
  ERR_ACTOR_RUNTIME_STOPPING: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  ERR_ACTOR_STATE_STORE_INVALID: { http: 500, grpc: GrpcStatus.FAILED_PRECONDITION },
  ERR_ACTOR_INSTANCE_MISSING: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_ACTOR_INVOKE_METHOD: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_ACTOR_STATE_GET: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_ACTOR_STATE_TRANSACTION_SAVE: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_ACTOR_REMINDER_CREATE: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_ACTOR_REMINDER_GET: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_ACTOR_REMINDER_DELETE: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_ACTOR_REMINDER_NON_EXISTENT: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  ERR_ACTOR_TIMER_CREATE: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_ACTOR_TIMER_DELETE: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_ACTOR_APP_CONFIG: { http: 500, grpc: GrpcStatus.UNAVAILABLE },
  // Placement (several replicas): the actor's partition has no reachable owner yet, or moved while the call ran
  ERR_ACTOR_NOT_OWNER: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  ERR_ACTOR_PLACEMENT_UNAVAILABLE: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  ERR_ACTOR_PEER_CALL: { http: 500, grpc: GrpcStatus.INTERNAL },

  // Pub/sub (statuses as the reference system's; a malformed CloudEvent is the client's fault here: 400)
  ERR_PUBSUB_NOT_CONFIGURED: { http: 400, grpc: GrpcStatus.FAILED_PRECONDITION },
  ERR_PUBSUB_EMPTY: { http: 404, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_PUBSUB_NOT_FOUND: { http: 404, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_TOPIC_EMPTY: { http: 404, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_PUBSUB_FORBIDDEN: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED },
  ERR_PUBSUB_REQUEST_METADATA: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_PUBSUB_CLOUD_EVENTS_SER: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_PUBSUB_EVENTS_SER: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_PUBSUB_PUBLISH_MESSAGE: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_PUBSUB_SUBSCRIPTION_INVALID: { http: 500, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_PUBSUB_SUBSCRIPTION_EXISTS: { http: 409, grpc: GrpcStatus.ALREADY_EXISTS },

  // Bindings
  ERR_BINDING_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  ERR_BINDING_OPERATION_NOT_SUPPORTED: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_INVOKE_OUTPUT_BINDING: { http: 500, grpc: GrpcStatus.INTERNAL },

  // Secrets (statuses as the reference system's, 401 for an unknown store included: its SDKs and users expect it).
  // ERR_PERMISSION_DENIED (below) answers a secret the store's scope denies.
  ERR_SECRET_STORES_NOT_CONFIGURED: { http: 500, grpc: GrpcStatus.FAILED_PRECONDITION },
  ERR_SECRET_STORE_NOT_FOUND: { http: 401, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_SECRET_GET: { http: 500, grpc: GrpcStatus.INTERNAL },

  // Configuration API (the reference system's statuses; not the Configuration resource's ERR_CONFIGURATION_INVALID)
  ERR_CONFIGURATION_STORE_NOT_CONFIGURED: { http: 500, grpc: GrpcStatus.FAILED_PRECONDITION },
  ERR_CONFIGURATION_STORE_NOT_FOUND: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_CONFIGURATION_GET: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_CONFIGURATION_SUBSCRIBE: { http: 500, grpc: GrpcStatus.INVALID_ARGUMENT },

  // Distributed lock (statuses as the reference system's; missing fields are ERR_MALFORMED_REQUEST)
  ERR_LOCK_STORE_NOT_CONFIGURED: { http: 500, grpc: GrpcStatus.FAILED_PRECONDITION },
  ERR_LOCK_STORE_NOT_FOUND: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_TRY_LOCK: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_UNLOCK: { http: 500, grpc: GrpcStatus.INTERNAL },

  // Jobs: the reference system's codes; a missing job is 404 / NOT_FOUND here (the reference answers 500, a failure)
  DAPR_SCHEDULER_EMPTY: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  DAPR_SCHEDULER_JOB_NAME: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  DAPR_SCHEDULER_JOB_NAME_EMPTY: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  DAPR_SCHEDULER_SCHEDULE_EMPTY: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  DAPR_SCHEDULER_SCHEDULE_JOB: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  DAPR_SCHEDULER_JOB_EXISTS: { http: 409, grpc: GrpcStatus.ALREADY_EXISTS },
  DAPR_SCHEDULER_GET_JOB: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  DAPR_SCHEDULER_LIST_JOBS: { http: 500, grpc: GrpcStatus.INTERNAL },
  DAPR_SCHEDULER_DELETE_JOB: { http: 500, grpc: GrpcStatus.INTERNAL },

  // Service invocation: the target app's own answers (any status) pass through as they are; these are svcd's.
  ERR_DIRECT_INVOKE: { http: 500, grpc: GrpcStatus.INTERNAL },
  ERR_DIRECT_INVOKE_APP_NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  ERR_DIRECT_INVOKE_UNREACHABLE: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  ERR_DIRECT_INVOKE_CALLER_UNAUTHENTICATED: { http: 401, grpc: GrpcStatus.UNAUTHENTICATED },
  ERR_PERMISSION_DENIED: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED },
  ERR_APP_CHANNEL_NIL: { http: 500, grpc: GrpcStatus.FAILED_PRECONDITION },
  ERR_NAME_RESOLUTION: { http: 500, grpc: GrpcStatus.UNAVAILABLE },

  // Configuration
  ERR_CONFIG_INVALID: { http: 500, grpc: GrpcStatus.INVALID_ARGUMENT },
  // Kubernetes mode: the API server could not be read (or refused)
  ERR_KUBERNETES_API: { http: 500, grpc: GrpcStatus.UNAVAILABLE },

  // Resiliency (docs/resiliency.md): a bad Resiliency resource fails the start; the other two answer a call that a
  // target's policy cut short, with the statuses a client reads as "try later" (503) and "too slow" (504)
  ERR_RESILIENCY_INVALID: { http: 500, grpc: GrpcStatus.INVALID_ARGUMENT },
  ERR_RESILIENCY_TIMEOUT: { http: 504, grpc: GrpcStatus.DEADLINE_EXCEEDED },
  ERR_CIRCUIT_BREAKER_OPEN: { http: 503, grpc: GrpcStatus.UNAVAILABLE },

  // The Configuration resource (--config, the svc.io/config annotation): a document svcd cannot use, or a
  // selector that names none. ERR_CONFIG_INVALID above is about svcd's own flags and env vars.
  ERR_CONFIGURATION_INVALID: { http: 500, grpc: GrpcStatus.INVALID_ARGUMENT },
} as const satisfies Record<string, { http: number; grpc: GrpcStatus }>;

export type ErrorCode = keyof typeof ERROR_CODES;
