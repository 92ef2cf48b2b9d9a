import type { Logger } from '../log/logger.js';
import { isConfigurationDocument } from './configuration-resource.js';
import { isResiliencyDocument } from './resiliency-document.js';
import { parseResourceDocuments, readResourceDocuments, type ResourceDocument } from './resource-files.js';
import { DAPR_COMPONENT_API_VERSION, isComponentDocument, isDaprComponentDocument, parseComponentSpec, type ComponentSpec } from './spec.js';
import { selectComponents } from './select.js';
import { isSubscriptionDocument } from './subscription-document.js';

/** Reads every Component document of every `.yaml`/`.yml` file (multi-document) in each folder, not recursively. */
export async function readComponentSpecs(folders: readonly string[], log: Logger): Promise<ComponentSpec[]> {
  return componentSpecsOf(await readResourceDocuments(folders, log), log);
}

export function parseResourceFile(file: string, text: string, log: Logger): ComponentSpec[] {
  return componentSpecsOf(parseResourceDocuments(file, text, 'ERR_COMPONENT_SPEC_INVALID'), log);
}

/** The Components among the documents; kinds that no loader reads are skipped with a log line. */
function componentSpecsOf(documents: readonly ResourceDocument[], log: Logger): ComponentSpec[] {
  const specs: ComponentSpec[] = [];
  for (const { doc, source } of documents) {
    // read by the pub/sub subscriptions, the Configuration loader and resiliency/
    if (isSubscriptionDocument(doc) || isConfigurationDocument(doc) || isResiliencyDocument(doc)) continue;
    if (!isComponentDocument(doc)) {
      const d = doc as { apiVersion?: unknown; kind?: unknown };
      log.info({ source, apiVersion: d.apiVersion, kind: d.kind }, 'skipping a document that is not a Component, a Subscription, a Configuration or a Resiliency (svc.io or dapr.io)');
      continue;
    }
    if (isDaprComponentDocument(doc)) log.warn({ source }, `loading a ${DAPR_COMPONENT_API_VERSION} Component; write apiVersion: svc.io/v1alpha1`);
    specs.push(parseComponentSpec(doc, source));
  }
  return specs;
}

/** Standalone mode: read the resources paths, then keep what this app may load. */
export async function loadStandaloneComponents(folders: readonly string[], appId: string, log: Logger): Promise<ComponentSpec[]> {
  return selectComponents(await readComponentSpecs(folders, log), { appId, namespace: process.env.NAMESPACE, log });
}
