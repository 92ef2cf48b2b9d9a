/**
 * The embedded default resources (`svc init`, `make run`): a SQLite state store named `statestore` that is also
 * the actor (and so workflow) state store. Existing files are kept.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const DEFAULT_RESOURCES_PATH = '.svc/resources';

const DEFAULT_STATE_STORE = `# The embedded default: workflows and actors keep their state in SQLite under svcd's --data-dir.
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
`;

/** Writes what is missing; returns the files it created. */
export function writeDefaultResources(folder: string): string[] {
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, 'statestore.yaml');
  if (existsSync(file)) return [];
  writeFileSync(file, DEFAULT_STATE_STORE);
  return [file];
}
