import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { placementChannel, placementTables } from '../../src/state/postgres-placement.js';
import { FencedError, OWNERSHIP_PARTITIONS, type Fence, type HostRecord, type MultiHostStore, type PlacementBackend } from '../../src/state/placement-store.js';
import { PostgresStateStore, postgresOptionsFromMetadata } from '../../src/state/postgresql.js';
import { RedisStateStore } from '../../src/state/redis.js';
import { redisOptionsFromMetadata } from '../../src/stores/redis-connection.js';
import { StateEtagError, type TransactionOperation } from '../../src/components/contracts/state-store.js';
import { deleteRedisKeysWithPrefix, dropTestPostgresTable, TEST_POSTGRES_URL, TEST_REDIS_HOST } from '../support/index.js';

const metadata = (md: Record<string, string>) => (name: string) => md[name];

/** Two stores of one kind stand for two svcd replicas; `cleanup` removes what the suite wrote. */
interface BackendCase {
  readonly kind: string;
  connect(): Promise<MultiHostStore>;
  cleanup(appIds: readonly string[]): Promise<void>;
}

const table = `placement_${randomBytes(4).toString('hex')}`;

const CASES: readonly BackendCase[] = [
  {
    kind: 'redis',
    connect: () => RedisStateStore.connect(redisOptionsFromMetadata(metadata({ redisHost: TEST_REDIS_HOST }))),
    cleanup: async (appIds) => {
      for (const appId of appIds) await deleteRedisKeysWithPrefix(appId);
    },
  },
  {
    kind: 'postgresql',
    connect: () => PostgresStateStore.connect(postgresOptionsFromMetadata(metadata({ connectionString: TEST_POSTGRES_URL, tableName: table }))),
    cleanup: () => dropTestPostgresTable(table),
  },
];

function host(hostId: string, address = `${hostId}.pods:50002`): HostRecord {
  return { hostId, address, actorTypes: ['Counter', 'dapr.internal.wf'], workers: 1, startedAt: 1_700_000_000_000 };
}

const upsert = (key: string, value: string, etag?: string): TransactionOperation => ({ operation: 'upsert', request: { key, value: Buffer.from(value), etag } });

/** Subscribes and resolves once listening: `first` resolves on the first wake. */
async function subscribed(backend: PlacementBackend): Promise<{ first: Promise<void>; count: () => number }> {
  let count = 0;
  let wake!: () => void;
  const first = new Promise<void>((resolve) => (wake = resolve));
  await backend.subscribe(() => {
    count++;
    wake();
  });
  return { first, count: () => count };
}

async function fencedFailure(work: Promise<void>): Promise<FencedError> {
  const failure = await work.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(failure).to.be.instanceOf(FencedError);
  return failure as FencedError;
}

for (const c of CASES) {
  describe(`placement backend: ${c.kind}`, function () {
    this.timeout(20_000);
    let storeA: MultiHostStore;
    let storeB: MultiHostStore;
    const appIds: string[] = [];
    let app = '';
    let opened: PlacementBackend[] = [];
    /** A backend of the current app on replica A's or B's store, initialised. */
    const backend = async (store: MultiHostStore, appId = app) => {
      const b = store.placementBackend(appId);
      opened.push(b);
      await b.init();
      return b;
    };
    const newApp = () => {
      const appId = `placement-${randomBytes(4).toString('hex')}`;
      appIds.push(appId);
      return appId;
    };
    const value = async (store: MultiHostStore, key: string) => (await store.get({ key }))?.data.toString();

    before(async () => {
      [storeA, storeB] = await Promise.all([c.connect(), c.connect()]);
    });
    after(async () => {
      await Promise.all([storeA?.close(), storeB?.close()]);
      await c.cleanup(appIds);
    });
    beforeEach(() => {
      app = newApp();
    });
    afterEach(async () => {
      await Promise.all(opened.map((b) => b.close()));
      opened = [];
    });

    it('gives every backend of one app the same token (concurrent first starts included) and another app another', async () => {
      const [a, b] = [storeA.placementBackend(app), storeB.placementBackend(app)];
      opened.push(a, b);
      const [tokenA, tokenB] = await Promise.all([a.init(), b.init()]);
      expect(tokenA.token).to.have.length.greaterThan(30);
      expect(tokenB).to.deep.equal(tokenA);
      expect(await (await backend(storeA)).init()).to.deep.equal(tokenA);
      const other = storeA.placementBackend(newApp());
      opened.push(other);
      expect((await other.init()).token).to.not.equal(tokenA.token);
    });

    it('shows every live host to every host, with its record and the lease time left', async () => {
      const [a, b] = [await backend(storeA), await backend(storeB)];
      await a.heartbeat(host('a'), 5000);
      const view = await b.heartbeat(host('b'), 5000);
      const byId = new Map(view.hosts.map((h) => [h.hostId, h]));
      expect([...byId.keys()].sort()).to.deep.equal(['a', 'b']);
      expect(byId.get('a')).to.deep.include(host('a'));
      for (const h of view.hosts) expect(h.expiresInMs).to.be.within(1, 5000);
      expect(view.partitions).to.have.length(OWNERSHIP_PARTITIONS);
      view.partitions.forEach((p, i) => expect(p).to.deep.equal({ partition: i, owner: null, epoch: 0 }));
      expect((await a.heartbeat(host('a'), 5000)).hosts.map((h) => h.hostId).sort()).to.deep.equal(['a', 'b']);
    });

    it('drops a host whose lease was not renewed within its ttl', async () => {
      const [a, b] = [await backend(storeA), await backend(storeB)];
      await a.heartbeat(host('a'), 5000);
      expect((await b.heartbeat(host('b'), 5000)).hosts.map((h) => h.hostId).sort()).to.deep.equal(['a', 'b']);
      await a.heartbeat(host('a'), 300); // its last renewal
      await sleep(400);
      expect((await b.heartbeat(host('b'), 5000)).hosts.map((h) => h.hostId)).to.deep.equal(['b']);
    });

    it('claims free partitions once, bumping the epoch; a live owner keeps its partitions until its lease lapses', async () => {
      const [a, b] = [await backend(storeA), await backend(storeB)];
      await a.heartbeat(host('a'), 5000);
      await b.heartbeat(host('b'), 5000);
      expect(await a.claim(host('a'), [0, 1, 2])).to.deep.equal([0, 1, 2].map((p) => ({ partition: p, owner: 'a', epoch: 1 })));
      expect(await b.claim(host('b'), [1, 2, 3])).to.deep.equal([{ partition: 3, owner: 'b', epoch: 1 }]);
      const view = await b.heartbeat(host('b'), 5000);
      expect(view.partitions.slice(0, 5)).to.deep.equal([
        { partition: 0, owner: 'a', epoch: 1 },
        { partition: 1, owner: 'a', epoch: 1 },
        { partition: 2, owner: 'a', epoch: 1 },
        { partition: 3, owner: 'b', epoch: 1 },
        { partition: 4, owner: null, epoch: 0 },
      ]);
      await a.heartbeat(host('a'), 300); // its last renewal
      await sleep(400);
      expect(await b.claim(host('b'), [1])).to.deep.equal([{ partition: 1, owner: 'b', epoch: 2 }]);
    });

    it("lets a host with a live owner's address (the owner restarted) claim its partitions at once", async () => {
      const [a, b] = [await backend(storeA), await backend(storeB)];
      await a.heartbeat(host('a', '10.0.0.1:50002'), 5000);
      await a.claim(host('a', '10.0.0.1:50002'), [7]);
      expect(await b.claim(host('b', '10.0.0.2:50002'), [7])).to.deep.equal([]);
      expect(await b.claim(host('a-restarted', '10.0.0.1:50002'), [7])).to.deep.equal([{ partition: 7, owner: 'a-restarted', epoch: 2 }]);
    });

    it('releases only what the fence still holds, keeping the epoch; then another host claims it', async () => {
      const [a, b] = [await backend(storeA), await backend(storeB)];
      await a.heartbeat(host('a'), 5000);
      await a.claim(host('a'), [5, 6]);
      await a.release([
        { partition: 5, owner: 'a', epoch: 1 },
        { partition: 6, owner: 'a', epoch: 0 }, // stale: not released
      ]);
      const view = await b.heartbeat(host('b'), 5000);
      expect(view.partitions.slice(5, 7)).to.deep.equal([
        { partition: 5, owner: null, epoch: 1 },
        { partition: 6, owner: 'a', epoch: 1 },
      ]);
      expect(await b.claim(host('b'), [5, 6])).to.deep.equal([{ partition: 5, owner: 'b', epoch: 2 }]);
    });

    it('forgets a host that leaves', async () => {
      const [a, b] = [await backend(storeA), await backend(storeB)];
      await a.heartbeat(host('a'), 5000);
      await a.leave('a');
      expect((await b.heartbeat(host('b'), 5000)).hosts.map((h) => h.hostId)).to.deep.equal(['b']);
    });

    it("wakes every subscriber of the app on a publish (the publisher's own included), and no other app's", async () => {
      const [a, b] = [await backend(storeA), await backend(storeB)];
      const other = await backend(storeB, newApp());
      const [wakesA, wakesB, wakesOther] = await Promise.all([subscribed(a), subscribed(b), subscribed(other)]);
      await a.publish();
      await Promise.all([wakesA.first, wakesB.first]);
      // Delivered in publish order: had a's publish reached `other`, it would have counted before this one.
      await other.publish();
      await wakesOther.first;
      expect(wakesOther.count()).to.equal(1);
    });

    it('applies a fenced transaction while the fences hold', async () => {
      const a = await backend(storeA);
      await a.heartbeat(host('a'), 5000);
      await a.claim(host('a'), [3, 4]);
      const fences: Fence[] = [
        { partition: 3, owner: 'a', epoch: 1 },
        { partition: 4, owner: 'a', epoch: 1 },
      ];
      await storeA.transactFenced(app, [upsert(`${app}||k1`, 'one'), upsert(`${app}||k2`, 'two')], fences);
      expect([await value(storeB, `${app}||k1`), await value(storeB, `${app}||k2`)]).to.deep.equal(['one', 'two']);
      const etagMismatch = await storeA.transactFenced(app, [upsert(`${app}||k1`, 'three', '99')], fences).catch((err: unknown) => err);
      expect(etagMismatch).to.be.instanceOf(StateEtagError);
    });

    it('applies nothing and names the partitions when a fence has a stale epoch or a foreign owner', async () => {
      const [a, b] = [await backend(storeA), await backend(storeB)];
      await a.heartbeat(host('a', '10.0.0.1:1'), 5000);
      await a.claim(host('a', '10.0.0.1:1'), [3, 4, 9]);
      await b.claim(host('a2', '10.0.0.1:1'), [4]); // a restarted as a2: partition 4 is at epoch 2 now
      await storeA.transact([upsert(`${app}||k`, 'before')]);
      const ops: TransactionOperation[] = [upsert(`${app}||k`, 'after'), upsert(`${app}||new`, 'x'), { operation: 'delete', request: { key: `${app}||k` } }];
      const stale = await fencedFailure(
        storeA.transactFenced(app, ops, [
          { partition: 3, owner: 'a', epoch: 1 },
          { partition: 4, owner: 'a', epoch: 1 },
        ]),
      );
      expect(stale.partitions).to.deep.equal([4]);
      expect(stale.message).to.include('partitions 4');
      const foreign = await fencedFailure(storeA.transactFenced(app, ops, [{ partition: 9, owner: 'b', epoch: 1 }]));
      expect(foreign.partitions).to.deep.equal([9]);
      const neverClaimed = await fencedFailure(storeA.transactFenced(app, ops, [{ partition: 20, owner: 'a', epoch: 0 }]));
      expect(neverClaimed.partitions).to.deep.equal([20]);
      expect([await value(storeB, `${app}||k`), await value(storeB, `${app}||new`)]).to.deep.equal(['before', undefined]);
    });
  });
}

describe('placement backend: postgresql specifics', function () {
  this.timeout(20_000);
  const orderTable = `placement_order_${randomBytes(4).toString('hex')}`;
  const app = 'order-app';
  let store: MultiHostStore;
  let admin: pg.Client;

  before(async () => {
    store = await PostgresStateStore.connect(postgresOptionsFromMetadata(metadata({ connectionString: TEST_POSTGRES_URL, tableName: orderTable })));
    admin = new pg.Client(TEST_POSTGRES_URL);
    await admin.connect();
  });
  after(async () => {
    await store?.close();
    await admin?.end();
    await dropTestPostgresTable(orderTable);
  });

  /** Waits until a statement containing `fragment` is blocked on a lock; fails when it never is. */
  async function blockedOn(fragment: string): Promise<void> {
    for (let attempt = 0; attempt < 500; attempt++) {
      // `admin` may be inside its own transaction, where pg_stat_activity is a snapshot taken at the first read:
      // drop it, or a statement that started blocking after that read would never show.
      await admin.query('SELECT pg_stat_clear_snapshot()');
      const res = await admin.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%' || $1 || '%'", [fragment]);
      if (res.rowCount) return;
      await sleep(10);
    }
    throw new Error(`no statement on ${fragment} waited for a lock`);
  }

  it('makes a claim wait for the commit of an in-flight fenced turn on that partition', async () => {
    const backend = store.placementBackend(app);
    try {
      await backend.init();
      await backend.heartbeat(host('a', '10.0.0.1:1'), 5000);
      await backend.claim(host('a', '10.0.0.1:1'), [11]);
      await store.transact([upsert('turn-key', 'before')]);

      // Hold the turn open after its fence check: another connection locks the row the turn writes.
      await admin.query('BEGIN');
      await admin.query(`SELECT 1 FROM "${orderTable}" WHERE key = 'turn-key' FOR UPDATE`);
      const order: string[] = [];
      const turn = store.transactFenced(app, [upsert('turn-key', 'from-turn')], [{ partition: 11, owner: 'a', epoch: 1 }]).then(() => order.push('turn'));
      await blockedOn(`"${orderTable}"`);
      const claim = backend.claim(host('a2', '10.0.0.1:1'), [11]).then((claimed) => {
        order.push('claim');
        return claimed;
      });
      // The claim waits on the partition's row, which the turn holds until it commits: neither has finished.
      await blockedOn(placementTables(orderTable).partitions);
      expect(order).to.deep.equal([]);
      await admin.query('COMMIT');

      // Which reply reaches this process first is a race between two connections (the turn's COMMIT releases its
      // locks before its reply goes out), so only the server's order is checked: the claim waited above.
      expect(await claim).to.deep.equal([{ partition: 11, owner: 'a2', epoch: 2 }]);
      await turn;
      expect(order).to.have.members(['turn', 'claim']);
      expect((await store.get({ key: 'turn-key' }))?.data.toString()).to.equal('from-turn');
    } finally {
      await admin.query('ROLLBACK').catch(() => undefined);
      await backend.close();
    }
  });

  it('listens again after its LISTEN connection was cut, and reports a change for what it missed', async () => {
    const backend = store.placementBackend(app);
    try {
      await backend.init();
      const wakes = await subscribed(backend);
      const cut = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1', [`LISTEN ${placementChannel(orderTable, app)}`]);
      expect(cut.rowCount).to.equal(1);
      await wakes.first; // the reconnect's report
      const before = wakes.count();
      const next = new Promise<void>((resolve) => void backend.subscribe(resolve));
      await backend.publish();
      await next;
      expect(wakes.count()).to.equal(before + 1);
    } finally {
      await backend.close();
    }
  });
});
