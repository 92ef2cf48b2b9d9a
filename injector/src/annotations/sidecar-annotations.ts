import { ANNOTATIONS, type SidecarAnnotations } from './table.js';

export interface ParsedAnnotations {
  readonly values: SidecarAnnotations;
  /** One readable reason per annotation whose value could not be parsed. */
  readonly problems: readonly string[];
}

/** Reads every table annotation from a pod; absent annotations take the table default. */
export function parseSidecarAnnotations(annotations: Readonly<Record<string, string>> | undefined): ParsedAnnotations {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const def of ANNOTATIONS) {
    const raw = annotations?.[def.key];
    if (raw === undefined) {
      values[def.field] = def.default;
      continue;
    }
    try {
      values[def.field] = (def.parse as (raw: string) => unknown)(raw);
    } catch (err) {
      problems.push(`annotation ${def.key}: ${(err as Error).message}`);
      values[def.field] = def.default;
    }
  }
  return { values: values as SidecarAnnotations, problems };
}
