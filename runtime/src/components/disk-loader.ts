import type { Logger } from '../log/logger.js';
import { readResourceDocuments, resourceDocuments, type ResourceDocument } from './resource-documents.js';
import { isResiliencyDocument } from './resiliency-document.js';
import { DAPR_COMPONENT_API_VERSION, isComponentDocument, isDaprComponentDocument, parseComponentSpec, type ComponentSpec } from './spec.js';
import { selectComponents } from './select.js';
import { isSubscriptionDocument } from './subscription-document.js';

/** Reads every Component document of every `.yaml`/`.yml` file (multi-document) in each folder, not recursively. */
export async function readComponentSpecs(folders: readonly string[], log: Logger): Promise<ComponentSpec[]> {
  return componentSpecs(await readResourceDocuments(folders, log), log);
}

export function parseResourceFile(file: string, text: string, log: Logger): ComponentSpec[] {
  return componentSpecs(resourceDocuments(file, text), log);
}

function componentSpecs(documents: readonly ResourceDocument[], log: Logger): ComponentSpec[] {
  const specs: ComponentSpec[] = [];
  for (const { doc, source } of documents) {
    if (isSubscriptionDocument(doc) || isResiliencyDocument(doc)) continue; // read by pub/sub and by resiliency/
    if (!isComponentDocument(doc)) {
      const d = doc as { apiVersion?: unknown; kind?: unknown };
      log.info({ source, apiVersion: d.apiVersion, kind: d.kind }, 'skipping a document that is not a Component (svc.io/v1alpha1 or dapr.io/v1alpha1), a Subscription or a Resiliency');
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
