/**
 * Configuration changes for an app that subscribed over HTTP, delivered as Dapr delivers them: for each changed key,
 * `POST /configuration/<store>/<key>` on the app with the whole update (`{"id", "items"}`) as JSON. One attempt
 * each, as Dapr makes without a resiliency policy (a failure is logged); a subscription's updates go out in order.
 */
import { appRequest } from '../app/app-http.js';
import { ensureError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import type { ConfigurationSubscriber, ConfigurationUpdate } from './configuration-api.js';

const DELIVERY_TIMEOUT_MS = 30_000;
/** The app's answer is not read: a small limit is enough. */
const MAX_ANSWER_BYTES = 64 * 1024;

export class AppConfigurationUpdates {
  constructor(
    private readonly appPort: number,
    private readonly log: Logger,
  ) {}

  /** A subscriber that hands `storeName`'s updates to the app. */
  subscriberFor(storeName: string): ConfigurationSubscriber {
    let previous = Promise.resolve();
    return {
      onUpdate: (update) => {
        previous = previous.then(() => this.#deliver(storeName, update));
      },
    };
  }

  async #deliver(storeName: string, update: ConfigurationUpdate): Promise<void> {
    const body = JSON.stringify(update);
    for (const key of Object.keys(update.items)) {
      const path = `/configuration/${encodeURIComponent(storeName)}/${encodeURIComponent(key)}`;
      try {
        const res = await appRequest(`http://127.0.0.1:${this.appPort}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json' }, timeoutMs: DELIVERY_TIMEOUT_MS, maxBodyBytes: MAX_ANSWER_BYTES });
        if (res.status !== 200) this.log.error({ path, status: res.status }, 'the app did not take a configuration update');
      } catch (err) {
        this.log.error({ path, err: ensureError(err).message }, 'cannot deliver a configuration update to the app');
      }
    }
  }
}
