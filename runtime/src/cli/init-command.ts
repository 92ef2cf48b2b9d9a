/** `svc init [--resources-path <dir>]`: writes the embedded default resources (kept when they exist). */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_RESOURCES_PATH, writeDefaultResources } from './default-resources.js';
import { UsageError } from './usage-error.js';

export const INIT_USAGE = `Usage: svc init [--resources-path <dir>]

Writes a resources folder (default ${DEFAULT_RESOURCES_PATH}) with the embedded defaults: a SQLite state store named
statestore that is also the workflow and actor store, and a SQLite pub/sub named pubsub. Files already there are
kept.
`;

export function initCommand(argv: readonly string[]): void {
  let values;
  try {
    ({ values } = parseArgs({ args: [...argv], options: { 'resources-path': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${INIT_USAGE}`);
  }
  if (values.help === true) {
    process.stdout.write(INIT_USAGE);
    return;
  }
  const folder = path.resolve(values['resources-path'] ?? DEFAULT_RESOURCES_PATH);
  const created = writeDefaultResources(folder);
  for (const { file, what } of created) process.stdout.write(`created ${file} (${what})\n`);
  if (created.length === 0) process.stdout.write(`${folder} already has statestore.yaml and pubsub.yaml: kept as they are\n`);
  process.stdout.write(`next: svc run --app-id myapp --resources-path ${path.relative(process.cwd(), folder) || '.'} -- <your app command>\n`);
}
