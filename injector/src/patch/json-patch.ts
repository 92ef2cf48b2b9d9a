/** RFC 6902 JSON Patch operations as the injector emits them (only `add`: it never removes or rewrites). */
export interface JsonPatchAdd {
  readonly op: 'add';
  readonly path: string;
  readonly value: unknown;
}

export type JsonPatchOp = JsonPatchAdd;

/** Escapes one JSON Pointer segment (RFC 6901): `svc.io/app-id` → `svc.io~1app-id`. */
export function pointerSegment(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

export function add(path: string, value: unknown): JsonPatchAdd {
  return { op: 'add', path, value };
}
