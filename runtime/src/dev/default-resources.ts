/**
 * `make run` helper: makes sure a resources folder exists with the embedded default component, a SQLite state
 * store named `statestore` that is also the actor (and so workflow) state store. Existing files are kept.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const DEFAULT_STATE_STORE = `apiVersion: svc.io/v1alpha1
kind: Component
metadata:
  name: statestore
spec:
  type: state.sqlite
  version: v1
  metadata:
    - name: actorStateStore
      value: "true"
`;

const folder = path.resolve(process.argv[2] ?? '.svc/resources');
mkdirSync(folder, { recursive: true });
const file = path.join(folder, 'statestore.yaml');
if (!existsSync(file)) {
  writeFileSync(file, DEFAULT_STATE_STORE);
  process.stdout.write(`created ${file} (state.sqlite, actorStateStore)\n`);
}
