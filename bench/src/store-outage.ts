/**
 * A store that goes away and comes back: svcd with a Redis or PostgreSQL actor store, the server stopped for a few
 * seconds (Redis killed; PostgreSQL cut off by a TCP proxy), one state save after another throughout. Prints how
 * long a failing save takes while the store is down (p50, max) and how long after the store's return the first
 * save succeeds. Run: `npm run build && node bench/dist/src/store-outage.js` (BENCH_OUTAGE_ROUNDS, default 3).
 */
import {
  PrivateRedisServer,
  SvcdProcess,
  TcpProxy,
  TEST_POSTGRES_URL,
  componentYaml,
  dropTestPostgresTable,
  freePort,
} from '@svc/runtime/test-support';
import { percentile } from './workflow-loop.js';

const print = (line: string) => process.stdout.write(`${line}\n`);
const ROUNDS = Number(process.env.BENCH_OUTAGE_ROUNDS ?? 3);
const OUTAGE_MS = 5_000;

interface Outage {
  readonly label: string;
  readonly component: () => Promise<{ yaml: string; down: () => Promise<void>; up: () => Promise<void>; stop: () => Promise<void> }>;
}

const OUTAGES: Outage[] = [
  {
    label: 'state.redis (server killed)',
    component: async () => {
      const port = await freePort();
      let redis = await PrivateRedisServer.start(port);
      return {
        yaml: componentYaml('store', 'state.redis', { redisHost: `127.0.0.1:${port}`, actorStateStore: 'true' }),
        down: () => redis.kill(),
        up: async () => void (redis = await PrivateRedisServer.start(port)),
        stop: () => redis.stop(),
      };
    },
  },
  {
    label: 'state.postgresql (connections cut)',
    component: async () => {
      const target = new URL(TEST_POSTGRES_URL);
      const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
      const viaProxy = new URL(TEST_POSTGRES_URL);
      viaProxy.host = `127.0.0.1:${proxy.port}`;
      const table = `outage_${process.pid}`;
      return {
        yaml: componentYaml('store', 'state.postgresql', { connectionString: viaProxy.toString(), tableName: table, actorStateStore: 'true' }),
        down: () => proxy.down(),
        up: () => proxy.up(),
        stop: async () => {
          await proxy.down();
          await dropTestPostgresTable(table);
        },
      };
    },
  },
];

async function save(svcd: SvcdProcess): Promise<{ ok: boolean; ms: number }> {
  const started = performance.now();
  const res = await svcd.request('POST', '/v1.0/state/store', [{ key: 'k', value: 1 }]);
  await res.arrayBuffer();
  return { ok: res.status === 204, ms: performance.now() - started };
}

print(`| store | round | failing save p50 ms | failing save max ms | first good save after return ms |`);
print(`|---|---|---|---|---|`);
for (const outage of OUTAGES) {
  for (let round = 1; round <= ROUNDS; round++) {
    const store = await outage.component();
    const svcd = await SvcdProcess.start({ resources: { 'store.yaml': store.yaml } });
    try {
      await store.down();
      const failing: number[] = [];
      const downUntil = performance.now() + OUTAGE_MS;
      while (performance.now() < downUntil) {
        const r = await save(svcd);
        if (!r.ok) failing.push(r.ms);
      }
      await store.up();
      const back = performance.now();
      while (!(await save(svcd)).ok) await new Promise((resolve) => setTimeout(resolve, 5));
      const recovered = performance.now() - back;
      failing.sort((a, b) => a - b);
      print(`| ${outage.label} | ${round} | ${percentile(failing, 50).toFixed(0)} | ${(failing.at(-1) ?? 0).toFixed(0)} | ${recovered.toFixed(0)} |`);
    } finally {
      await svcd.dispose();
      await store.stop();
    }
  }
}
