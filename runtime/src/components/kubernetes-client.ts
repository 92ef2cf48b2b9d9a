/**
 * What svcd uses of the Kubernetes client, in one place: svcd's bundle makes this module a script of its own
 * (runtime/scripts/bundle.mjs), loaded only in Kubernetes mode, the client being a third of the whole bundle.
 */
export { ApiException, CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
