// `make bench`: every benchmark, one after another, each in its own process (so one's memory and open handles
// cannot colour the next one's figures); each prints its own table.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const BENCHES: { script: string; nodeArgs?: string[] }[] = [
  { script: 'state.js' },
  { script: 'state-pluggable.js' },
  { script: 'state-grpc.js' },
  { script: 'sqlite-writes.js' },
  { script: 'invocation.js' },
  { script: 'actors.js', nodeArgs: ['--expose-gc'] },
  { script: 'workflow.js' },
  { script: 'fanout-huge.js' },
  { script: 'list-instances.js' },
  { script: 'waiting-memory.js' },
  { script: 'waiting-rss.js' },
  { script: 'startup.js' },
  { script: 'replicas.js' },
  { script: 'pubsub.js' },
  { script: 'pubsub-backlog.js' },
  { script: 'store-outage.js' },
  { script: 'tracing.js' },
];

let failed = 0;
for (const bench of BENCHES) {
  process.stdout.write(`\n=== bench/${bench.script.replace(/\.js$/, '')} ===\n`);
  const res = spawnSync(process.execPath, [...(bench.nodeArgs ?? []), path.join(here, bench.script)], { stdio: 'inherit' });
  if (res.status !== 0) {
    failed++;
    process.stderr.write(`bench/${bench.script} exited with ${res.status ?? res.signal}\n`);
  }
}
process.exit(failed === 0 ? 0 : 1);
