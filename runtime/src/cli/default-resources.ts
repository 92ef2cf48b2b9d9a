/**
 * The embedded default resources (`svc init`, `make run`): a SQLite state store named `statestore` that is also
 * the actor (and so workflow) state store, and a SQLite pub/sub named `pubsub` — every building block works with
 * no server to install. Existing files are kept.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const DEFAULT_RESOURCES_PATH = '.svc/resources';

/** File name → content, and what the file is, for the lines that report it. */
const DEFAULTS: readonly { file: string; what: string; yaml: string }[] = [
  {
    file: 'statestore.yaml',
    what: 'state.sqlite, also the workflow and actor store',
    yaml: `# The embedded default: workflows and actors keep their state in SQLite under svcd's --data-dir.
apiVersion: svc.io/v1alpha1
kind: Component
metadata:
  name: statestore
spec:
  type: state.sqlite
  version: v1
  metadata:
    - name: actorStateStore
      value: "true"
`,
  },
  {
    file: 'pubsub.yaml',
    what: 'pubsub.sqlite, durable, no broker needed',
    yaml: `# The embedded default pub/sub: messages kept in SQLite under svcd's --data-dir (pubsub.db), delivered at least
# once, across restarts. Replace it with pubsub.redis or pubsub.jetstream for several replicas (docs/pubsub.md).
apiVersion: svc.io/v1alpha1
kind: Component
metadata:
  name: pubsub
spec:
  type: pubsub.sqlite
  version: v1
`,
  },
];

/** Writes what is missing; returns the files it created with what each one is. */
export function writeDefaultResources(folder: string): { file: string; what: string }[] {
  mkdirSync(folder, { recursive: true });
  const created: { file: string; what: string }[] = [];
  for (const d of DEFAULTS) {
    const file = path.join(folder, d.file);
    if (existsSync(file)) continue;
    writeFileSync(file, d.yaml);
    created.push({ file, what: d.what });
  }
  return created;
}
