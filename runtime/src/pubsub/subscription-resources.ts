/**
 * Declarative subscriptions: `Subscription` documents (`svc.io/v2alpha1`; also `v1alpha1` and, for migrating
 * apps, `dapr.io/…`) in the resources paths, kept when their `scopes` are empty or name this app.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { isSubscriptionDocument } from '../components/subscription-document.js';
import { parseSubscription, type Subscription } from './subscriptions.js';


/** The subscriptions in one parsed YAML document, or none (another kind, or out of this app's scopes). */
export function subscriptionFromDocument(doc: unknown, source: string, appId: string, log: Logger): Subscription | undefined {
  if (!isSubscriptionDocument(doc)) return undefined;
  const d = doc as { apiVersion: string; metadata?: { name?: unknown }; spec?: unknown; scopes?: unknown };
  const scopes = d.scopes ?? [];
  if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string')) throw new RuntimeError('ERR_PUBSUB_SUBSCRIPTION_INVALID', `subscription from ${source}: scopes must be a list of app ids`);
  if (scopes.length > 0 && !scopes.includes(appId)) {
    log.debug({ source }, 'subscription not scoped to this app');
    return undefined;
  }
  if (d.apiVersion.startsWith('dapr.io/')) log.warn({ source, apiVersion: d.apiVersion }, `loading a ${d.apiVersion} Subscription; write svc.io/v2alpha1`);
  return parseSubscription(d.spec, 'declarative', source);
}

/** Every Subscription in the `.yaml`/`.yml` files of the folders; an invalid one stops start-up, naming its file. */
export async function loadSubscriptionResources(folders: readonly string[], appId: string, log: Logger): Promise<Subscription[]> {
  const out: Subscription[] = [];
  for (const folder of folders) {
    const names = (await fs.readdir(folder).catch(() => [] as string[])).filter((n) => /\.ya?ml$/i.test(n)).sort();
    for (const name of names) {
      const file = path.join(folder, name);
      let docs: unknown[];
      try {
        docs = yaml.loadAll(await fs.readFile(file, 'utf8'));
      } catch {
        continue; // the component loader reports files that are not YAML
      }
      docs.forEach((doc, i) => {
        const sub = subscriptionFromDocument(doc, docs.length > 1 ? `file ${file} (document ${i + 1})` : `file ${file}`, appId, log);
        if (sub) out.push(sub);
      });
    }
  }
  return out;
}
