/**
 * State API through a pluggable state store (the example component on a Unix socket) beside the embedded SQLite
 * default, same svcd, same load: what the gRPC hop to a component costs. Prints one table.
 * Run: `npm run build && node bench/dist/src/state-pluggable.js`.
 */
import { pathToFileURL } from 'node:url';
import { componentYaml, ExampleComponent, tempSocketsFolder } from '@svc/runtime/test-support';
import { benchStateTarget, builtinStateTargets, printStateTable, type StateBenchOptions, type StateBenchRow } from './state.js';

export async function runPluggableStateBench(opts: StateBenchOptions = {}): Promise<void> {
  console.log(`state API over HTTP, pluggable store vs SQLite: autocannon, ${opts.durationSec ?? 5} s per row, ~300-byte JSON values`);
  const rows: StateBenchRow[] = [];
  const sqlite = builtinStateTargets().find((t) => t.label === 'SQLite')!;
  rows.push(...(await benchStateTarget(sqlite, opts)));
  const folder = tempSocketsFolder();
  const component = await ExampleComponent.start({ folder, name: 'memstore' });
  try {
    const target = { label: 'pluggable (example, UDS)', svcd: { socketsFolder: folder, resources: { 'store.yaml': componentYaml('store', 'state.memstore') } } };
    rows.push(...(await benchStateTarget(target, opts)));
  } finally {
    await component.stop();
  }
  printStateTable(rows);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runPluggableStateBench();
