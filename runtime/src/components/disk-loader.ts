import { promises as fs, type Dirent } from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { DAPR_COMPONENT_API_VERSION, isComponentDocument, isDaprComponentDocument, parseComponentSpec, type ComponentSpec } from './spec.js';
import { selectComponents } from './select.js';
import { isSubscriptionDocument } from './subscription-document.js';

const YAML_FILE = /\.ya?ml$/i;

/** Reads every Component document of every `.yaml`/`.yml` file (multi-document) in each folder, not recursively. */
export async function readComponentSpecs(folders: readonly string[], log: Logger): Promise<ComponentSpec[]> {
  const specs: ComponentSpec[] = [];
  for (const folder of folders) {
    let entries: Dirent[];
    try {
      entries = await fs.readdir(folder, { withFileTypes: true });
    } catch (err) {
      throw new RuntimeError('ERR_CONFIG_INVALID', `cannot read resources path ${folder}: ${(err as Error).message}`, { cause: err });
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) continue;
      if (!YAML_FILE.test(entry.name)) {
        log.warn({ file }, 'skipping a file that is not YAML in the resources path');
        continue;
      }
      specs.push(...parseResourceFile(file, await fs.readFile(file, 'utf8'), log));
    }
  }
  return specs;
}

export function parseResourceFile(file: string, text: string, log: Logger): ComponentSpec[] {
  let docs: unknown[];
  try {
    docs = yaml.loadAll(text);
  } catch (err) {
    throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', `${file}: invalid YAML: ${(err as Error).message}`, { cause: err });
  }
  const specs: ComponentSpec[] = [];
  docs.forEach((doc, i) => {
    if (doc === null || doc === undefined) return;
    const source = docs.length > 1 ? `file ${file} (document ${i + 1})` : `file ${file}`;
    if (isSubscriptionDocument(doc)) return; // read by the pub/sub subscriptions
    if (!isComponentDocument(doc)) {
      const d = doc as { apiVersion?: unknown; kind?: unknown };
      log.info({ source, apiVersion: d.apiVersion, kind: d.kind }, 'skipping a document that is not a Component (svc.io/v1alpha1 or dapr.io/v1alpha1) or a Subscription');
      return;
    }
    if (isDaprComponentDocument(doc)) log.warn({ source }, `loading a ${DAPR_COMPONENT_API_VERSION} Component; write apiVersion: svc.io/v1alpha1`);
    specs.push(parseComponentSpec(doc, source));
  });
  return specs;
}

/** Standalone mode: read the resources paths, then keep what this app may load. */
export async function loadStandaloneComponents(folders: readonly string[], appId: string, log: Logger): Promise<ComponentSpec[]> {
  return selectComponents(await readComponentSpecs(folders, log), { appId, namespace: process.env.NAMESPACE, log });
}
