import { isResiliencyDocument } from '../components/resiliency-document.js';
import { readResourceDocuments } from '../components/resource-files.js';
import { RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { parseResiliencySpec, type ResiliencySpec, type ResiliencyTargets, type TargetPolicies } from './resiliency-spec.js';

/** The Resiliency resources an app uses, merged into one set of targets. */
export interface LoadedResiliency {
  /** `metadata.name` of each resource merged, in load order. */
  readonly resources: readonly string[];
  readonly targets: ResiliencyTargets;
}

export const NO_RESILIENCY: LoadedResiliency = {
  resources: [],
  targets: { apps: new Map(), actors: new Map(), outbound: new Map(), inbound: new Map() },
};

/** One set of targets from several resources; a target declared by two of them is an error naming both. */
export function mergeResiliency(specs: readonly ResiliencySpec[]): LoadedResiliency {
  const merge = <P extends TargetPolicies>(group: keyof ResiliencyTargets): Map<string, P> => {
    const merged = new Map<string, P>();
    for (const spec of specs) {
      for (const [name, target] of spec.targets[group] as ReadonlyMap<string, P>) {
        const earlier = merged.get(name);
        if (earlier) {
          throw new RuntimeError('ERR_RESILIENCY_INVALID', `${target.source}: ${target.field} is already declared by ${earlier.source} (one Resiliency target, one declaration)`);
        }
        merged.set(name, target);
      }
    }
    return merged;
  };
  return {
    resources: specs.map((s) => s.name),
    targets: { apps: merge('apps'), actors: merge('actors'), outbound: merge('outbound'), inbound: merge('inbound') },
  };
}

/**
 * Standalone mode: the Resiliency documents of the resources paths (other kinds are someone else's) whose scopes
 * hold `appId` (empty scopes: every app), merged.
 */
export async function loadResiliency(folders: readonly string[], appId: string, log: Logger): Promise<LoadedResiliency> {
  return resiliencyFor(appId, await readResourceDocuments(folders, log), log);
}

/** The Resiliency documents among `documents` (from files or the API server) that apply to `appId`, merged. */
export function resiliencyFor(appId: string, documents: readonly { doc: unknown; source: string }[], log: Logger): LoadedResiliency {
  const specs = documents
    .filter(({ doc }) => isResiliencyDocument(doc))
    .map(({ doc, source }) => parseResiliencySpec(doc, source))
    .filter((spec) => spec.scopes.length === 0 || spec.scopes.includes(appId));
  const loaded = mergeResiliency(specs);
  if (specs.length > 0) log.info({ resources: loaded.resources }, 'loaded Resiliency resources');
  return loaded;
}
