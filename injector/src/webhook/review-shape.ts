/**
 * The parts of an AdmissionReview the injector reads, checked before anything reads them: an annotation that is a
 * number, `containers` as an object or a null entry made the injector fail with a TypeError (500 with the error
 * text). Each problem is named by its path so the caller sees what to fix; the API server never sends such
 * reviews, so only a hand-made request meets these checks.
 */
type Shape = 'string' | 'boolean' | 'object' | 'stringMap' | { readonly arrayOf: Shape | Fields } | Fields;
interface Fields {
  readonly fields: Readonly<Record<string, Shape>>;
}

const NAMED = { fields: { name: 'string' } } as const;
const CONTAINER: Fields = {
  fields: { name: 'string', image: 'string', env: { arrayOf: NAMED }, volumeMounts: { arrayOf: { fields: { name: 'string', mountPath: 'string' } } }, ports: { arrayOf: 'object' }, securityContext: 'object' },
};
const POD: Fields = {
  fields: {
    metadata: { fields: { name: 'string', generateName: 'string', namespace: 'string', annotations: 'stringMap', labels: 'stringMap' } },
    spec: {
      fields: {
        containers: { arrayOf: CONTAINER },
        initContainers: { arrayOf: CONTAINER },
        volumes: { arrayOf: NAMED },
        serviceAccountName: 'string',
        hostNetwork: 'boolean',
        hostPID: 'boolean',
        hostIPC: 'boolean',
        securityContext: 'object',
      },
    },
  },
};
const REQUEST: Fields = {
  fields: {
    uid: 'string',
    operation: 'string',
    namespace: 'string',
    dryRun: 'boolean',
    kind: { fields: { group: 'string', version: 'string', kind: 'string' } },
    userInfo: { fields: { username: 'string', groups: { arrayOf: 'string' } } },
    object: POD,
  },
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The first problem of `value` at `path` (present fields only: absent ones are the injector's business). */
function problemOf(value: unknown, shape: Shape, path: string): string | undefined {
  if (shape === 'string' || shape === 'boolean') return typeof value === shape ? undefined : `${path} must be a ${shape}`;
  if (shape === 'object') return isObject(value) ? undefined : `${path} must be an object`;
  if (shape === 'stringMap') {
    if (!isObject(value)) return `${path} must be an object`;
    const bad = Object.entries(value).find(([, v]) => typeof v !== 'string');
    return bad ? `${path}["${bad[0]}"] must be a string` : undefined;
  }
  if ('arrayOf' in shape) {
    if (!Array.isArray(value)) return `${path} must be an array`;
    for (let i = 0; i < value.length; i++) {
      const p = problemOf(value[i], shape.arrayOf, `${path}[${i}]`);
      if (p) return p;
    }
    return undefined;
  }
  if (!isObject(value)) return `${path} must be an object`;
  for (const [field, fieldShape] of Object.entries(shape.fields)) {
    if (value[field] === undefined) continue;
    const p = problemOf(value[field], fieldShape, `${path}.${field}`);
    if (p) return p;
  }
  return undefined;
}

/** Why `request` is not a request the injector can read, or undefined. */
export function admissionRequestProblem(request: unknown): string | undefined {
  return problemOf(request, REQUEST, 'request');
}
