/**
 * `svc workflow get <id> --follow`: an instance's history events as they happen, until it ends (or is purged).
 * Each change is awaited with a watch, `GET …/<id>?changedAfter=<its last update>`, which svcd answers when the
 * instance changes (at the latest after `waitSeconds`, when it is asked again): nothing is polled.
 */
import { isTerminalStatus, type RuntimeStatus } from '../workflow/engine.js';
import type { WorkflowInstanceView } from '../workflow/instance-view.js';
import type { HistoryEventView, HistoryPageView } from '../workflow/history-view.js';
import { CliError, type SvcdClient } from './svcd-client.js';

const WATCH_SECONDS = 30;

/**
 * Hands every event of the current run to `onEvent`, in order, from the first, as they are written; resolves with
 * the instance once it has ended. A run that continued as new starts its history again: its events follow.
 */
export async function followInstance(client: SvcdClient, instancePath: string, first: WorkflowInstanceView, onEvent: (e: HistoryEventView) => void): Promise<WorkflowInstanceView> {
  let instance = first;
  let shown = 0;
  for (;;) {
    shown = await showNewEvents(client, instancePath, shown, onEvent);
    if (isTerminalStatus(instance.runtimeStatus as RuntimeStatus)) return instance;
    instance = await client.call<WorkflowInstanceView>('GET', `${instancePath}?changedAfter=${encodeURIComponent(instance.lastUpdatedAt)}&waitSeconds=${WATCH_SECONDS}`);
  }
}

/** The events from index `from` on; the count shown after. A history now shorter than `from` is a new run's. */
async function showNewEvents(client: SvcdClient, instancePath: string, from: number, onEvent: (e: HistoryEventView) => void): Promise<number> {
  let token: string | null = String(from);
  let next = from;
  while (token !== null) {
    let page: HistoryPageView;
    try {
      page = await client.call('GET', `${instancePath}/history?pageSize=5000&continuationToken=${token}`);
    } catch (err) {
      // A token past the end: the instance continued as new (or was rerun) and its history started again.
      if (err instanceof CliError && err.code === 'ERR_MALFORMED_REQUEST' && next > 0) return showNewEvents(client, instancePath, 0, onEvent);
      throw err;
    }
    for (const e of page.events) onEvent(e);
    next += page.events.length;
    token = page.continuationToken;
  }
  return next;
}
