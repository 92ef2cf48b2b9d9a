/** Fixed names of what the injector adds to a pod (docs/kubernetes.md). */
export const SIDECAR_CONTAINER_NAME = 'svcd';
export const SOCKETS_VOLUME_NAME = 'svc-components-sockets';
export const DATA_VOLUME_NAME = 'svc-data';
/** svcd's writable data folder: the root filesystem is read-only. */
export const DATA_MOUNT_PATH = '/var/lib/svc';
/**
 * The ServiceAccount token svcd presents to the sidecars it calls: projected for audience svc.io/invoke only, so a
 * called sidecar cannot use it against the API server; the kubelet rotates it. svcd reads it at the default of
 * its --invoke-token-file.
 */
export const INVOKE_TOKEN_VOLUME_NAME = 'svc-invoke-token';
export const INVOKE_TOKEN_MOUNT_PATH = '/var/run/secrets/svc.io/invoke';
export const INVOKE_TOKEN_AUDIENCE = 'svc.io/invoke';
/** Projected tokens' default life; the kubelet renews the file at 80% of it. */
export const INVOKE_TOKEN_SECONDS = 3600;
export const HEALTH_PATH = '/v1.0/healthz';
export const INJECTED_LABEL = 'svc.io/sidecar-injected';
export const APP_ID_LABEL = 'svc.io/app-id';
/**
 * The socket folder env names: ours, and the two spellings Dapr's component SDKs read, so that components
 * built with them work unchanged (reference notes G1).
 */
export const SOCKETS_FOLDER_ENV_NAMES = ['SVC_COMPONENTS_SOCKETS_FOLDER', 'DAPR_COMPONENTS_SOCKETS_FOLDER', 'DAPR_COMPONENT_SOCKETS_FOLDER'] as const;
