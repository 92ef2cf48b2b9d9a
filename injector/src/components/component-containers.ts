/**
 * Pure selection of the containers to inject for pluggable components: the `svc.io/component-container`
 * annotation of the pod namespace's Components, kept only when the Component is scoped to this app (a
 * pluggable component runs only in the pods of the app it serves). Everything else becomes a warning (not for this app) or a problem (broken annotation, which denies
 * the pod: no half patch).
 */
import type { V1Container } from '@kubernetes/client-node';
import { COMPONENT_CONTAINER_ANNOTATION } from '../annotations/table.js';
import { containerPolicyProblems, type ContainerPolicyLevel } from './container-policy.js';

/** A Component object as listed from the API server (unstructured: only what the injector reads). */
export interface ComponentObject {
  readonly metadata?: { readonly name?: string; readonly annotations?: Readonly<Record<string, string>> };
  readonly spec?: unknown;
  readonly scopes?: unknown;
}

export interface ComponentContainerSelection {
  readonly containers: readonly V1Container[];
  readonly warnings: readonly string[];
  readonly problems: readonly string[];
}

const CONTAINER_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LIST_FIELDS = ['env', 'envFrom', 'volumeMounts', 'ports', 'args', 'command'] as const;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function scopesOf(component: ComponentObject): string[] {
  return Array.isArray(component.scopes) ? component.scopes.filter((s): s is string => typeof s === 'string') : [];
}

/** Parses one annotation value into a container, or returns the reason it cannot be used. */
export function parseComponentContainer(componentName: string, raw: string): V1Container | string {
  const where = `component "${componentName}": annotation ${COMPONENT_CONTAINER_ANNOTATION}`;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return `${where} is not valid JSON (${(err as Error).message})`;
  }
  if (!isRecord(value)) return `${where} must be a JSON object like {"name":"my-component","image":"registry/image:tag"}`;
  if (typeof value.name !== 'string' || !CONTAINER_NAME.test(value.name) || value.name.length > 63) {
    return `${where} needs "name": a container name (lower-case letters, digits, '-')`;
  }
  if (value.name === 'svcd') return `${where} may not use the container name "svcd"`;
  if (typeof value.image !== 'string' || value.image.trim() === '') return `${where} needs "image": a container image reference`;
  for (const field of LIST_FIELDS) {
    if (value[field] !== undefined && !Array.isArray(value[field])) return `${where} field "${field}" must be a list`;
  }
  return value as unknown as V1Container;
}

export interface SelectionRules {
  readonly policy: ContainerPolicyLevel;
  /**
   * May containers carry literal env values? Only when the caller is the verified API server: a patch is handed
   * to whoever sends an AdmissionReview, and env values are where secrets go.
   */
  readonly literalEnv: boolean;
}

/** Literal env values of a container: what an unverified caller may not be handed. */
function literalEnvProblems(component: string, container: V1Container): string[] {
  return (container.env ?? [])
    .filter((e) => e.value !== undefined && e.value !== '')
    .map(
      (e) =>
        `component "${component}": container "${container.name}" sets env ${e.name} as a literal value, which svc-injector hands only to an API server it verified ` +
        '(--client-ca-file): take it from a Secret or ConfigMap (valueFrom), or configure client authentication (docs/security.md)',
    );
}

export function selectComponentContainers(components: readonly ComponentObject[], appId: string, rules: SelectionRules): ComponentContainerSelection {
  const containers: V1Container[] = [];
  const warnings: string[] = [];
  const problems: string[] = [];
  const byName = new Map<string, { json: string; component: string }>();
  for (const component of components) {
    const raw = component.metadata?.annotations?.[COMPONENT_CONTAINER_ANNOTATION];
    if (raw === undefined) continue;
    const name = component.metadata?.name ?? '(unnamed)';
    const scopes = scopesOf(component);
    if (scopes.length === 0) {
      warnings.push(`component "${name}" is not injected: it has no scopes; add scopes: ["${appId}"] so that it runs only in this app`);
      continue;
    }
    if (!scopes.includes(appId)) {
      warnings.push(`component "${name}" is not injected: it is scoped to ${scopes.join(', ')}; add "${appId}" to its scopes if this app should run it`);
      continue;
    }
    const container = parseComponentContainer(name, raw);
    if (typeof container === 'string') {
      problems.push(container);
      continue;
    }
    const refused = [...containerPolicyProblems(name, container, rules.policy), ...(rules.literalEnv ? [] : literalEnvProblems(name, container))];
    if (refused.length > 0) {
      problems.push(...refused);
      continue;
    }
    // One socket may back several Components (state.x and pubsub.x): the same container is injected once.
    const json = JSON.stringify(container);
    const earlier = byName.get(container.name);
    if (earlier) {
      if (earlier.json !== json) {
        problems.push(`components "${earlier.component}" and "${name}" declare different containers named "${container.name}"`);
      }
      continue;
    }
    byName.set(container.name, { json, component: name });
    containers.push(container);
  }
  return { containers, warnings, problems };
}
