/**
 * The pods labelled `svc.io/app-id` of a namespace through the API server, as the list and watch calls of the
 * name resolution informer. Imported on demand, like the rest of the Kubernetes client.
 */
import { CoreV1Api, Watch, type KubeConfig } from '../kubernetes-client.js';
import { apiStatus, describeFailure } from '../kubernetes-loader.js';
import type { WatchEvent } from './list-watch.js';
import { APP_ID_LABEL, type PodSources, type PodView } from './kubernetes-resolver.js';

/**
 * The API server ends a watch after `timeoutSeconds` (spread, so that many sidecars do not all come back at once).
 * A watch still open well past that has a dead connection nobody noticed: it is dropped and resumed.
 */
const WATCH_SECONDS = { min: 300, max: 600 };
const SILENT_GRACE_MS = 60_000;

function failure(namespace: string, verb: 'list' | 'watch', status: number | undefined, problem: string): Error {
  const hint = status === 403 ? `; svcd's service account needs get/list/watch on pods in namespace ${namespace} (docs/security.md: other namespaces need the chart's sidecar.crossNamespaceInvocation)` : '';
  return new Error(`cannot ${verb} pods in namespace ${namespace}: ${problem}${hint}`);
}

export function apiServerPods(kc: KubeConfig): PodSources {
  const core = kc.makeApiClient(CoreV1Api);
  const watcher = new Watch(kc);
  return (namespace) => ({
    async list() {
      try {
        const list = await core.listNamespacedPod({ namespace, labelSelector: APP_ID_LABEL });
        return { items: list.items, resourceVersion: list.metadata?.resourceVersion ?? '' };
      } catch (err) {
        throw failure(namespace, 'list', apiStatus(err), describeFailure(err));
      }
    },

    watch(resourceVersion, onEvent, onEnd) {
      const timeoutSeconds = WATCH_SECONDS.min + Math.floor(Math.random() * (WATCH_SECONDS.max - WATCH_SECONDS.min));
      let ended = false;
      let controller: AbortController | undefined;
      const stop = () => {
        ended = true;
        clearTimeout(silent);
        controller?.abort();
      };
      const end = (err?: unknown) => {
        if (ended) return;
        stop();
        onEnd(err);
      };
      const silent = setTimeout(() => end(new Error(`no end of the watch ${SILENT_GRACE_MS / 1000} s after its timeout`)), timeoutSeconds * 1000 + SILENT_GRACE_MS);
      silent.unref();
      const query = { labelSelector: APP_ID_LABEL, resourceVersion, allowWatchBookmarks: true, timeoutSeconds };
      const started = watcher.watch(
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`,
        query,
        (type: string, object: unknown) => {
          if (!ended) onEvent({ type, object } as WatchEvent<PodView>);
        },
        (err: unknown) => {
          const status = (err as { statusCode?: number } | null)?.statusCode;
          end(err ? failure(namespace, 'watch', status, status ? `${status} ${(err as Error).message}` : (err as Error).message) : undefined);
        },
      );
      started.then(
        (c) => {
          controller = c;
          if (ended) c.abort();
        },
        (err: unknown) => end(err),
      );
      return { stop };
    },
  });
}
