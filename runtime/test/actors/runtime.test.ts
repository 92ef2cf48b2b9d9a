import { expect } from 'chai';
import { Registry } from 'prom-client';
import { FakeClock, settle } from '../../src/actors/clock.js';
import { LocalActorRuntime } from '../../src/actors/runtime.js';
import type { Actor, ActorContext, ReminderInfo } from '../../src/actors/types.js';
import { isRuntimeError } from '../../src/errors/runtime-error.js';
import { createLogger } from '../../src/log/logger.js';
import { InMemoryStateStore } from '../../src/state/in-memory.js';
import type { GetRequest, StateMetadata, TransactionOperation, TransactionalStateStore } from '../../src/components/contracts/state-store.js';

/** The real in-memory store, counting reads (every key read, single or bulk) and transactions, with an injectable commit failure. */
class CountingStore extends InMemoryStateStore {
  reads: string[] = [];
  /** Store calls that read (get or bulkGet). */
  readCalls = 0;
  transactions: TransactionOperation[][] = [];
  failNextTransact = false;

  override get(req: GetRequest) {
    this.readCalls++;
    this.reads.push(req.key);
    return super.get(req);
  }

  override bulkGet(reqs: readonly GetRequest[]) {
    this.readCalls++;
    for (const r of reqs) this.reads.push(r.key);
    return super.bulkGet(reqs);
  }

  override async transact(ops: readonly TransactionOperation[], metadata?: StateMetadata): Promise<void> {
    if (this.failNextTransact) {
      this.failNextTransact = false;
      throw new Error('injected commit failure');
    }
    this.transactions.push([...ops]);
    return super.transact(ops, metadata);
  }
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}
function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const log = createLogger({ level: 'error', json: true });
const text = (b: Buffer | undefined) => b?.toString('utf8');

function setup(opts: { idleTimeoutMs?: number; store?: CountingStore; clock?: FakeClock } = {}) {
  const clock = opts.clock ?? new FakeClock();
  const store = opts.store ?? new CountingStore();
  const runtime = new LocalActorRuntime({ appId: 'app', store, log, metrics: new Registry(), clock, ...(opts.idleTimeoutMs !== undefined && { idleTimeoutMs: opts.idleTimeoutMs }) });
  return { clock, store, runtime };
}

/** Records every reminder fire with the clock time it ran at. */
/** A started runtime on `store`/`clock` whose actor type `t` records every reminder fire (restart tests). */
async function startRecorder(store: CountingStore, clock: FakeClock, fires: { id: string; name: string; at: number; dueAt: number; data?: string }[]) {
  const runtime = setup({ store, clock }).runtime;
  runtime.registerType('t', reminderRecorder(fires));
  await runtime.start();
  return runtime;
}

function reminderRecorder(fires: { id: string; name: string; at: number; dueAt: number; data?: string }[], onFire?: (ctx: ActorContext, info: ReminderInfo) => Promise<void>) {
  return (id: string): Actor => ({
    invoke: () => Promise.resolve(undefined),
    async onReminder(name, data, ctx, info) {
      fires.push({ id, name, at: ctx.clock.now(), dueAt: info.dueAt, ...(data !== undefined && { data: text(data) }) });
      await onFire?.(ctx, info);
    },
  });
}

describe('actors: turns', () => {
  it('runs one turn at a time per actor, in arrival order, under concurrent callers', async () => {
    const { runtime } = setup();
    const log: string[] = [];
    let inside = 0;
    let maxInside = 0;
    runtime.registerType('counter', () => ({
      async invoke(method, data, ctx) {
        inside++;
        maxInside = Math.max(maxInside, inside);
        log.push(`start ${text(data)}`);
        const n = Number(text(await ctx.state.get('n')) ?? '0');
        await settle(1); // yield to other callers mid-turn
        ctx.state.set('n', Buffer.from(String(n + 1)));
        log.push(`end ${text(data)}`);
        inside--;
        return Buffer.from(String(n + 1));
      },
    }));
    await runtime.start();
    const callers = Array.from({ length: 3 }, (_, c) => Array.from({ length: 10 }, (_, i) => `${c}-${i}`));
    // Three callers interleave their calls; the actor sees them in the order they arrived.
    const arrival: string[] = [];
    const results = await Promise.all(
      callers.flatMap((calls) =>
        calls.map((label) => {
          arrival.push(label);
          return runtime.invoke('counter', 'a', 'inc', Buffer.from(label));
        }),
      ),
    );
    expect(maxInside).to.equal(1);
    expect(log.filter((l) => l.startsWith('start')).map((l) => l.slice(6))).to.deep.equal(arrival);
    expect(results.map(text).sort((a, b) => Number(a) - Number(b))).to.deep.equal(Array.from({ length: 30 }, (_, i) => String(i + 1)));
    expect(text(await runtime.getState('counter', 'a', 'n'))).to.equal('30');
    await runtime.stop();
  });

  it('runs different actors concurrently', async () => {
    const { runtime } = setup();
    const gate = deferred();
    runtime.registerType('t', () => ({
      async invoke(method) {
        if (method === 'block') await gate.promise;
        return Buffer.from(method);
      },
    }));
    await runtime.start();
    const blocked = runtime.invoke('t', 'a', 'block');
    expect(text(await runtime.invoke('t', 'b', 'free'))).to.equal('free');
    gate.resolve();
    expect(text(await blocked)).to.equal('block');
    await runtime.stop();
  });

  it('fails only the throwing call and discards its buffered writes and reminders', async () => {
    const { runtime, store } = setup();
    runtime.registerType('t', () => ({
      invoke(method, data, ctx) {
        ctx.state.set('k', Buffer.from(method));
        ctx.createReminder('r', { dueTimeMs: 1000 });
        if (method === 'boom') return Promise.reject(new Error('turn failed'));
        return Promise.resolve(undefined);
      },
    }));
    await runtime.start();
    await runtime.invoke('t', 'a', 'first');
    await runtime.deleteReminder('t', 'a', 'r');
    const before = store.transactions.length;
    const err = await runtime.invoke('t', 'a', 'boom').catch((e: unknown) => e);
    expect((err as Error).message).to.equal('turn failed');
    expect(store.transactions.length).to.equal(before);
    expect(text(await runtime.getState('t', 'a', 'k'))).to.equal('first');
    expect(await runtime.getReminder('t', 'a', 'r')).to.equal(undefined);
    await runtime.invoke('t', 'a', 'second');
    expect(text(await runtime.getState('t', 'a', 'k'))).to.equal('second');
    await runtime.stop();
  });

  it('commits a turn in one transaction and keeps the cache unchanged when the commit fails', async () => {
    const { runtime, store } = setup();
    runtime.registerType('t', () => ({
      async invoke(method, data, ctx) {
        if (method === 'read') return ctx.state.get('x');
        ctx.state.set('x', Buffer.from(method));
        ctx.state.set('y', Buffer.from(method));
        ctx.state.delete('z');
        ctx.createReminder('r', { dueTimeMs: 60_000 });
        return undefined;
      },
    }));
    await runtime.start();
    await runtime.invoke('t', 'a', 'v1');
    expect(store.transactions).to.have.length(1);
    const keys = store.transactions[0]!.map((op) => `${op.operation} ${op.request.key}`);
    expect(keys).to.include.members(['upsert app||t||a||x', 'upsert app||t||a||y', 'delete app||t||a||z']);
    expect(keys.some((k) => k.startsWith('upsert app|||reminders||t||'))).to.equal(true);
    store.failNextTransact = true;
    const err = await runtime.invoke('t', 'a', 'v2').catch((e: unknown) => e);
    expect((err as Error).message).to.equal('injected commit failure');
    expect(text(await runtime.invoke('t', 'a', 'read'))).to.equal('v1');
    await runtime.stop();
  });

  it('reads each state key from the store at most once per activation', async () => {
    const { runtime, store } = setup();
    runtime.registerType('t', () => ({
      async invoke(method, data, ctx) {
        const [a, b] = await ctx.state.getMany(['a', 'b']);
        await ctx.state.get('a');
        await ctx.state.get('missing');
        ctx.state.set('a', Buffer.from(String(Number(text(a) ?? '0') + 1)));
        return b;
      },
    }));
    await runtime.start();
    for (let i = 0; i < 5; i++) await runtime.invoke('t', 'a', 'm');
    const actorReads = store.reads.filter((k) => k.startsWith('app||t||a||'));
    expect(actorReads).to.deep.equal(['app||t||a||a', 'app||t||a||b', 'app||t||a||missing']);
    expect(text(await runtime.getState('t', 'a', 'a'))).to.equal('5');
    await runtime.stop();
  });

  it('uncachedKeyPrefixes: those keys are read from the store on every read and never kept; the others are cached', async () => {
    const { runtime, store } = setup();
    runtime.registerType(
      't',
      () => ({
        async invoke(method, data, ctx) {
          if (method === 'write') {
            ctx.state.set('big-1', Buffer.from('v1'));
            ctx.state.set('small', Buffer.from('s'));
            return undefined;
          }
          const [big, small] = await ctx.state.getMany(['big-1', 'small']);
          return Buffer.from(`${text(big)}/${text(await ctx.state.get('big-1'))}/${text(small)}`);
        },
      }),
      { uncachedKeyPrefixes: ['big-'] },
    );
    await runtime.start();
    await runtime.invoke('t', 'a', 'write');
    store.reads.length = 0;
    expect(text(await runtime.invoke('t', 'a', 'read'))).to.equal('v1/v1/s');
    // Written behind the activation's back: an uncached key shows the store's value, a cached one the cached value.
    await store.set({ key: 'app||t||a||big-1', value: Buffer.from('v2') });
    await store.set({ key: 'app||t||a||small', value: Buffer.from('s2') });
    expect(text(await runtime.invoke('t', 'a', 'read'))).to.equal('v2/v2/s');
    const big = 'app||t||a||big-1';
    expect(store.reads.filter((k) => k.startsWith('app||t||a||')), 'single gets go to the store too').to.deep.equal([big, big, big, big]);
    await runtime.stop();
  });

  it('keeps cached values in memory of their own, not slices of a shared pool or of a larger read', async () => {
    const { runtime, store } = setup();
    const kept: Buffer[] = [];
    runtime.registerType('t', () => ({
      async invoke(method, _data, ctx) {
        if (method === 'write') ctx.state.set('written', Buffer.from('pooled')); // a slice of Node's 8 KiB pool
        else kept.push((await ctx.state.get('written'))!, (await ctx.state.get('read'))!);
        return undefined;
      },
    }));
    await store.set({ key: 'app||t||a||read', value: Buffer.from('a slice of a larger buffer').subarray(2, 7) });
    await runtime.start();
    await runtime.invoke('t', 'a', 'write');
    await runtime.invoke('t', 'a', 'read');
    expect(kept.map((b) => b.toString())).to.deep.equal(['pooled', 'slice']);
    expect(kept.map((b) => b.buffer.byteLength)).to.deep.equal([6, 5]);
    await runtime.stop();
  });

  it('refuses a call from a turn to its own actor instead of waiting forever', async () => {
    const { runtime } = setup();
    runtime.registerType('t', (id) => ({
      async invoke(method) {
        if (method === 'self') return runtime.invoke('t', id, 'other');
        if (method === 'peer') return runtime.invoke('t', 'b', 'other');
        return Buffer.from(`other of ${id}`);
      },
    }));
    await runtime.start();
    const err = await runtime.invoke('t', 'a', 'self').catch((e: unknown) => e);
    expect(isRuntimeError(err, 'ERR_ACTOR_INVOKE_METHOD')).to.equal(true);
    expect(text(await runtime.invoke('t', 'a', 'peer'))).to.equal('other of b');
    await runtime.stop();
  });

  it('serves a call to an actor from work its own turn started, once that turn is over', async () => {
    const { runtime } = setup();
    let later: Promise<Buffer | undefined> | undefined;
    runtime.registerType('t', (id) => ({
      async invoke(method) {
        if (method !== 'schedule') return Buffer.from(`other of ${id}`);
        // A callback the turn leaves behind (as a dispatcher's or a watcher's): it runs after the turn, so its call
        // queues like anyone's. A guard following the turn's async context would take it for a self-call.
        later = new Promise((resolve, reject) => {
          setImmediate(() => void runtime.invoke('t', id, 'other').then(resolve, reject));
        });
        await Promise.resolve();
        return Buffer.from('scheduled');
      },
    }));
    await runtime.start();
    expect(text(await runtime.invoke('t', 'a', 'schedule'))).to.equal('scheduled');
    expect(text(await later)).to.equal('other of a');
    await runtime.stop();
  });

  it('rejects calls to unregistered types with ERR_ACTOR_INSTANCE_MISSING', async () => {
    const { runtime } = setup();
    await runtime.start();
    const err = await runtime.invoke('nope', 'a', 'm').catch((e: unknown) => e);
    expect(isRuntimeError(err, 'ERR_ACTOR_INSTANCE_MISSING')).to.equal(true);
    await runtime.stop();
  });

  it('drains queued turns on stop and refuses new ones', async () => {
    const { runtime } = setup();
    const gate = deferred();
    let deactivated = 0;
    runtime.registerType('t', () => ({
      async invoke(method, data, ctx) {
        await gate.promise;
        ctx.state.set('k', Buffer.from(method));
        return Buffer.from(method);
      },
      onDeactivate: () => Promise.resolve(void deactivated++),
    }));
    await runtime.start();
    const a = runtime.invoke('t', 'a', 'one');
    const b = runtime.invoke('t', 'a', 'two');
    const stopping = runtime.stop();
    const refused = await runtime.invoke('t', 'b', 'x').catch((e: unknown) => e);
    expect(isRuntimeError(refused, 'ERR_ACTOR_RUNTIME_STOPPING')).to.equal(true);
    gate.resolve();
    expect([text(await a), text(await b)]).to.deep.equal(['one', 'two']);
    await stopping;
    expect(deactivated).to.equal(1);
    expect(runtime.activeCount('t')).to.equal(0);
  });
});

describe('actors: type index', () => {
  const indexer = (): Actor => ({
    invoke(method, data, ctx) {
      ctx.state.set('v', data ?? Buffer.alloc(0));
      ctx.setIndexEntry(ctx.id, method === 'unindex' ? null : (data ?? Buffer.alloc(0)));
      if (method === 'fail') throw new Error('turn failed');
      return Promise.resolve(undefined);
    },
  });
  const listed = async (runtime: LocalActorRuntime, page: { after?: string; limit: number }) =>
    (await runtime.listIndex('t', page)).map((e) => `${e.key}=${text(e.value)}`);

  it("commits a turn's index entry in the turn's own transaction and lists entries of every actor in key order", async () => {
    const { runtime, store } = setup();
    runtime.registerType('t', indexer);
    await runtime.start();
    for (const id of ['c', 'a', 'b', 'd']) await runtime.invoke('t', id, 'index', Buffer.from(id.toUpperCase()));
    const last = store.transactions[store.transactions.length - 1]!.map((op) => op.request.key).sort();
    expect(last).to.deep.equal(['app||t||d||v', 'app|||index||t||d']);
    expect(await listed(runtime, { limit: 10 })).to.deep.equal(['a=A', 'b=B', 'c=C', 'd=D']);
    expect(await listed(runtime, { limit: 2 })).to.deep.equal(['a=A', 'b=B']);
    expect(await listed(runtime, { after: 'b', limit: 2 })).to.deep.equal(['c=C', 'd=D']);
    await runtime.invoke('t', 'b', 'unindex');
    await runtime.invoke('t', 'c', 'index', Buffer.from('C2'));
    expect(await listed(runtime, { limit: 10 })).to.deep.equal(['a=A', 'c=C2', 'd=D']);
    await runtime.stop();
  });

  it('keeps a named index beside the unnamed one, in the same transaction; an undeclared name fails the turn', async () => {
    const { runtime, store } = setup();
    runtime.registerType(
      't',
      () => ({
        invoke(method, data, ctx) {
          ctx.setIndexEntry(ctx.id, data ?? Buffer.alloc(0));
          ctx.setIndexEntry(`${text(data)}/${ctx.id}`, data ?? Buffer.alloc(0), method === 'stray' ? 'other' : 'by-value');
          return Promise.resolve(undefined);
        },
      }),
      { indexes: ['by-value'] },
    );
    await runtime.start();
    for (const [id, v] of [['a', '3'], ['b', '1'], ['c', '2']] as const) await runtime.invoke('t', id, 'index', Buffer.from(v));
    const last = store.transactions[store.transactions.length - 1]!.map((op) => op.request.key).sort();
    expect(last).to.deep.equal(['app|||index||t|by-value||2/c', 'app|||index||t||c']);
    expect(await listed(runtime, { limit: 10 })).to.deep.equal(['a=3', 'b=1', 'c=2']);
    expect((await runtime.listIndex('t', { index: 'by-value', limit: 10 })).map((e) => e.key)).to.deep.equal(['1/b', '2/c', '3/a']);
    expect((await runtime.listIndex('t', { index: 'by-value', after: '1/b', limit: 1 })).map((e) => e.key)).to.deep.equal(['2/c']);
    const err = await runtime.invoke('t', 'd', 'stray', Buffer.from('4')).catch((e: unknown) => e);
    expect(String(err)).to.include("no index named 'other'");
    expect(await listed(runtime, { limit: 10 }), 'the failed turn wrote nothing').to.deep.equal(['a=3', 'b=1', 'c=2']);
    expect(isRuntimeError(await runtime.listIndex('t', { index: 'other', limit: 1 }).catch((e: unknown) => e), 'ERR_MALFORMED_REQUEST')).to.equal(true);
    expect(() => runtime.registerType('u', indexer, { indexes: ['Bad|Name'] })).to.throw(/invalid actor index name/);
    await runtime.stop();
  });

  it('writes no entry for a turn that throws or whose commit fails', async () => {
    const { runtime, store } = setup();
    runtime.registerType('t', indexer);
    await runtime.start();
    await runtime.invoke('t', 'a', 'fail', Buffer.from('A')).catch(() => undefined);
    store.failNextTransact = true;
    await runtime.invoke('t', 'b', 'index', Buffer.from('B')).catch(() => undefined);
    expect(await listed(runtime, { limit: 10 })).to.deep.equal([]);
    await runtime.stop();
  });

  it('on a store that cannot list: listIndex names the store (UNIMPLEMENTED), turns still commit without entries', async () => {
    const inner = new InMemoryStateStore();
    const store: TransactionalStateStore = {
      features: () => inner.features(),
      get: (r) => inner.get(r),
      set: (r) => inner.set(r),
      delete: (r) => inner.delete(r),
      bulkGet: (r) => inner.bulkGet(r),
      bulkSet: (r) => inner.bulkSet(r),
      bulkDelete: (r) => inner.bulkDelete(r),
      transact: (ops) => inner.transact(ops),
      close: () => inner.close(),
    };
    const runtime = new LocalActorRuntime({ appId: 'app', store, storeName: 'state store plugged (state.example)', log, metrics: new Registry(), clock: new FakeClock() });
    runtime.registerType('t', indexer);
    await runtime.start();
    await runtime.invoke('t', 'a', 'index', Buffer.from('A'));
    expect(text(await runtime.getState('t', 'a', 'v'))).to.equal('A');
    expect(await inner.get({ key: 'app|||index||t||a' })).to.equal(undefined);
    const err = await runtime.listIndex('t', { limit: 10 }).catch((e: unknown) => e);
    expect(isRuntimeError(err, 'ERR_STATE_STORE_NOT_SUPPORTED')).to.equal(true);
    expect(String(err)).to.include('state store plugged (state.example) cannot list keys');
    await runtime.stop();
  });
});

describe('actors: idle deactivation', () => {
  it('deactivates after the idle timeout, and a new message activates it again with fresh state reads', async () => {
    const { runtime, clock, store } = setup({ idleTimeoutMs: 1000 });
    const events: string[] = [];
    runtime.registerType('t', (id) => ({
      onActivate: () => Promise.resolve(void events.push(`activate ${id}`)),
      async invoke(method, data, ctx) {
        await ctx.state.get('k');
        return undefined;
      },
      onDeactivate: () => Promise.resolve(void events.push(`deactivate ${id}`)),
    }));
    await runtime.start();
    await runtime.invoke('t', 'a', 'm');
    await clock.advance(600);
    await runtime.invoke('t', 'a', 'm'); // activity resets the idle time
    await clock.advance(999);
    expect(runtime.activeCount('t')).to.equal(1);
    await clock.advance(1);
    expect(runtime.activeCount('t')).to.equal(0);
    expect(events).to.deep.equal(['activate a', 'deactivate a']);
    await runtime.invoke('t', 'a', 'm');
    expect(events).to.deep.equal(['activate a', 'deactivate a', 'activate a']);
    expect(store.reads.filter((k) => k === 'app||t||a||k')).to.have.length(2);
    await runtime.stop();
  });

  it('does not deactivate an actor while a turn runs, and honours a per-type idle timeout', async () => {
    const { runtime, clock } = setup({ idleTimeoutMs: 1000 });
    const gate = deferred();
    runtime.registerType('slow', () => ({ invoke: async () => (await gate.promise, undefined) }));
    runtime.registerType('quick', () => ({ invoke: () => Promise.resolve(undefined) }), { idleTimeoutMs: 100 });
    await runtime.start();
    const pending = runtime.invoke('slow', 'a', 'm');
    await runtime.invoke('quick', 'b', 'm');
    await clock.advance(5000);
    expect(runtime.activeCount('slow')).to.equal(1);
    expect(runtime.activeCount('quick')).to.equal(0);
    gate.resolve();
    await pending;
    await clock.advance(999);
    expect(runtime.activeCount('slow')).to.equal(1);
    await clock.advance(1);
    expect(runtime.activeCount('slow')).to.equal(0);
    await runtime.stop();
  });

  it('deactivateWhenIdle: ends the activation once its queue is empty after a committed turn, not after a failed one', async () => {
    const { runtime } = setup({ idleTimeoutMs: 60_000 });
    const events: string[] = [];
    const gate = deferred();
    runtime.registerType('t', (id) => ({
      async invoke(method, _data, ctx) {
        events.push(`${method} ${id}`);
        if (method === 'slow') await gate.promise;
        if (method === 'done' || method === 'fail') ctx.deactivateWhenIdle();
        if (method === 'fail') throw new Error('turn failed');
        return undefined;
      },
      onDeactivate: () => Promise.resolve(void events.push(`deactivate ${id}`)),
    }));
    await runtime.start();
    await runtime.invoke('t', 'a', 'fail').catch(() => undefined);
    expect(runtime.activeCount('t')).to.equal(1); // nothing committed: the request does not count
    const slow = runtime.invoke('t', 'a', 'slow');
    const done = runtime.invoke('t', 'a', 'done');
    const after = runtime.invoke('t', 'a', 'after'); // queued behind the turn that asked: still served first
    gate.resolve();
    await Promise.all([slow, done, after]);
    await Promise.resolve();
    expect(runtime.activeCount('t')).to.equal(0);
    expect(events).to.deep.equal(['fail a', 'slow a', 'done a', 'after a', 'deactivate a']);
    await runtime.invoke('t', 'a', 'again');
    expect(runtime.activeCount('t')).to.equal(1); // a new activation starts without the request
    await runtime.stop();
  });
});

describe('actors: reminders', () => {
  it("keeps a waiting reminder's data in memory of its own, not as a view of a larger (pooled) buffer", async () => {
    const { runtime, store } = setup();
    runtime.registerType('t', reminderRecorder([]));
    await runtime.start();
    const pooled = Buffer.from('payload');
    expect(pooled.buffer.byteLength, 'a small Buffer is a view of a pool slab').to.be.greaterThan(pooled.byteLength);
    await runtime.createReminder('t', 'a', 'r', { dueTimeMs: 60_000, data: pooled });
    const held = (await runtime.getReminder('t', 'a', 'r'))!.data!;
    expect(text(held)).to.equal('payload');
    expect(held.buffer.byteLength).to.equal(held.byteLength);
    await runtime.stop();
    // Read back from the store by another runtime: the same.
    const again = setup({ store }).runtime;
    again.registerType('t', reminderRecorder([]));
    await again.start();
    const loaded = (await again.getReminder('t', 'a', 'r'))!.data!;
    expect(text(loaded)).to.equal('payload');
    expect(loaded.buffer.byteLength).to.equal(loaded.byteLength);
    await again.stop();
  });

  it('fires a one-shot reminder at its due time, once, with its data, then deletes it', async () => {
    const { runtime, clock } = setup();
    const fires: { id: string; name: string; at: number; dueAt: number; data?: string }[] = [];
    runtime.registerType('t', reminderRecorder(fires));
    await runtime.start();
    const t0 = clock.now();
    await runtime.createReminder('t', 'a', 'r', { dueTimeMs: 5000, data: Buffer.from('payload') });
    expect((await runtime.getReminder('t', 'a', 'r'))?.dueAt).to.equal(t0 + 5000);
    await clock.advance(4999);
    expect(fires).to.have.length(0);
    await clock.advance(1);
    expect(fires).to.deep.equal([{ id: 'a', name: 'r', at: t0 + 5000, dueAt: t0 + 5000, data: 'payload' }]);
    await clock.advance(60_000);
    expect(fires).to.have.length(1);
    expect(await runtime.getReminder('t', 'a', 'r')).to.equal(undefined);
    await runtime.stop();
  });

  it('fires reminders of many actors in due-time order', async () => {
    const { runtime, clock } = setup();
    const fires: { id: string; name: string; at: number; dueAt: number }[] = [];
    runtime.registerType('t', reminderRecorder(fires));
    await runtime.start();
    const t0 = clock.now();
    const dues = [700, 100, 500, 300, 900, 200];
    for (const [i, d] of dues.entries()) await runtime.createReminder('t', `a${i}`, 'r', { dueTimeMs: d });
    await clock.advance(1000);
    expect(fires.map((f) => f.at - t0)).to.deep.equal([...dues].sort((a, b) => a - b));
    await runtime.stop();
  });

  it('fires a periodic reminder every period and stops after its repetitions', async () => {
    const { runtime, clock } = setup();
    const fires: { id: string; name: string; at: number; dueAt: number }[] = [];
    runtime.registerType('t', reminderRecorder(fires));
    await runtime.start();
    const t0 = clock.now();
    await runtime.createReminder('t', 'a', 'forever', { dueTimeMs: 1000, periodMs: 500 });
    await runtime.createReminder('t', 'b', 'thrice', { dueTimeMs: 1000, periodMs: 500, repetitions: 3 });
    await clock.advance(3000);
    expect(fires.filter((f) => f.name === 'forever').map((f) => f.at - t0)).to.deep.equal([1000, 1500, 2000, 2500, 3000]);
    expect(fires.filter((f) => f.name === 'thrice').map((f) => f.at - t0)).to.deep.equal([1000, 1500, 2000]);
    expect(await runtime.getReminder('t', 'b', 'thrice')).to.equal(undefined);
    expect((await runtime.getReminder('t', 'a', 'forever'))?.dueAt).to.equal(t0 + 3500);
    await runtime.stop();
  });

  it('stops firing and deletes a reminder when its TTL ends', async () => {
    const { runtime, clock } = setup();
    const fires: { id: string; name: string; at: number; dueAt: number }[] = [];
    runtime.registerType('t', reminderRecorder(fires));
    await runtime.start();
    const t0 = clock.now();
    await runtime.createReminder('t', 'a', 'r', { dueTimeMs: 1000, periodMs: 1000, ttlMs: 3500 });
    await clock.advance(10_000);
    expect(fires.map((f) => f.at - t0)).to.deep.equal([1000, 2000, 3000]);
    expect(await runtime.getReminder('t', 'a', 'r')).to.equal(undefined);
    const bad = await runtime.createReminder('t', 'a', 'bad', { dueTimeMs: 1000, ttlMs: 500 }).catch((e: unknown) => e);
    expect(isRuntimeError(bad, 'ERR_MALFORMED_REQUEST')).to.equal(true);
    await runtime.stop();
  });

  it('is safe to delete a reminder while it fires (from outside, or from the firing turn)', async () => {
    const { runtime, clock } = setup();
    const fires: { id: string; name: string; at: number; dueAt: number }[] = [];
    const gate = deferred();
    runtime.registerType(
      't',
      reminderRecorder(fires, async (ctx, info) => {
        if (ctx.id === 'outside') await gate.promise;
        if (ctx.id === 'inside') ctx.deleteReminder(info.name);
      }),
    );
    await runtime.start();
    await runtime.createReminder('t', 'outside', 'r', { dueTimeMs: 100, periodMs: 100 });
    await runtime.createReminder('t', 'inside', 'r', { dueTimeMs: 100, periodMs: 100 });
    await clock.advance(100);
    expect(fires.map((f) => f.id).sort()).to.deep.equal(['inside', 'outside']);
    await runtime.deleteReminder('t', 'outside', 'r'); // while its turn is still running
    gate.resolve();
    await settle();
    await clock.advance(1000);
    expect(fires).to.have.length(2);
    expect(await runtime.getReminder('t', 'outside', 'r')).to.equal(undefined);
    expect(await runtime.getReminder('t', 'inside', 'r')).to.equal(undefined);
    await runtime.stop();
  });

  it('does not fire a reminder deleted while its turn was queued behind another turn', async () => {
    const { runtime, clock } = setup();
    const fires: { id: string; name: string; at: number; dueAt: number }[] = [];
    const gate = deferred();
    runtime.registerType('t', (id) => ({
      invoke: async () => (await gate.promise, undefined),
      onReminder: (name, data, ctx) => Promise.resolve(void fires.push({ id, name, at: ctx.clock.now(), dueAt: 0 })),
    }));
    await runtime.start();
    const busy = runtime.invoke('t', 'a', 'block');
    await runtime.createReminder('t', 'a', 'r', { dueTimeMs: 10 });
    await clock.advance(10); // dispatched, queued behind the blocked turn
    await runtime.deleteReminder('t', 'a', 'r');
    gate.resolve();
    await busy;
    await settle();
    expect(fires).to.have.length(0);
    await runtime.stop();
  });

  it('a burst of reminders due together: each fires once, their actors load their state in two store reads (the first alone, the rest merged), and their commits share transactions', async () => {
    const { runtime, clock, store } = setup();
    const fires: string[] = [];
    runtime.registerType('t', (id) => ({
      invoke: () => Promise.resolve(undefined),
      async onReminder(name, data, ctx) {
        const seen = Number(text(await ctx.state.get('seen')) ?? '0');
        ctx.state.set('seen', Buffer.from(String(seen + 1)));
        fires.push(id);
      },
    }));
    await runtime.start();
    const ids = Array.from({ length: 300 }, (_, i) => `a${i}`);
    for (const id of ids) await runtime.createReminder('t', id, 'r', { dueTimeMs: 1000 });
    const [readCalls, transactions] = [store.readCalls, store.transactions.length];
    await clock.advance(1000);
    await settle();
    expect([...fires].sort()).to.deep.equal([...ids].sort());
    // The first activation's read goes at once (no one to wait for); the other 299, asked for while it is in flight, go as one.
    expect(store.readCalls - readCalls, 'store reads of 300 activations').to.equal(2);
    expect(store.transactions.length - transactions, 'transactions of 300 fires').to.be.at.most(30);
    for (const id of ids) {
      expect(text(await runtime.getState('t', id, 'seen'))).to.equal('1');
      expect(await runtime.getReminder('t', id, 'r')).to.equal(undefined);
    }
    await clock.advance(60_000);
    expect(fires).to.have.length(300);
    await runtime.stop();
  });

  it('bounds the reminder turns in flight; the others wait and fire in due-time order', async () => {
    const clock = new FakeClock();
    const store = new CountingStore();
    const runtime = new LocalActorRuntime({ appId: 'app', store, log, metrics: new Registry(), clock, maxReminderTurnsInFlight: 2 });
    const gates = new Map<string, Deferred>();
    const started: string[] = [];
    let running = 0;
    let maxRunning = 0;
    runtime.registerType('t', (id) => ({
      invoke: () => Promise.resolve(undefined),
      async onReminder() {
        started.push(id);
        maxRunning = Math.max(maxRunning, ++running);
        const gate = deferred();
        gates.set(id, gate);
        await gate.promise;
        running--;
      },
    }));
    await runtime.start();
    for (let i = 0; i < 6; i++) await runtime.createReminder('t', `a${i}`, 'r', { dueTimeMs: 100 + i });
    await clock.advance(200);
    expect(started).to.deep.equal(['a0', 'a1']);
    for (let i = 0; i < 6; i++) {
      gates.get(`a${i}`)?.resolve();
      await settle();
    }
    expect(started).to.deep.equal(['a0', 'a1', 'a2', 'a3', 'a4', 'a5']);
    expect(maxRunning).to.equal(2);
    await runtime.stop();
  });

  it('retries a failing reminder with backoff, committing nothing of the failed turns, until it succeeds', async () => {
    const { runtime, clock } = setup();
    const attempts: number[] = [];
    runtime.registerType('t', () => ({
      invoke: () => Promise.resolve(undefined),
      onReminder(name, data, ctx) {
        attempts.push(ctx.clock.now());
        ctx.state.set('attempt', Buffer.from(String(attempts.length)));
        return attempts.length < 4 ? Promise.reject(new Error('not yet')) : Promise.resolve();
      },
    }));
    await runtime.start();
    const t0 = clock.now();
    await runtime.createReminder('t', 'a', 'r', { dueTimeMs: 0 });
    await clock.advance(10_000);
    expect(attempts.map((t) => t - t0)).to.deep.equal([0, 100, 300, 700]);
    expect(text(await runtime.getState('t', 'a', 'attempt'))).to.equal('4');
    expect(await runtime.getReminder('t', 'a', 'r')).to.equal(undefined);
    await runtime.stop();
  });

  it('commits reminders created in a turn with its state, and starts them only after the commit', async () => {
    const { runtime, clock, store } = setup();
    const fires: { id: string; name: string; at: number; dueAt: number }[] = [];
    runtime.registerType('t', (id) => ({
      async invoke(method, data, ctx) {
        ctx.state.set('scheduled', Buffer.from('yes'));
        ctx.createReminder('wake', { dueTimeMs: 0, data: Buffer.from('d') });
        expect((await ctx.getReminder('wake'))?.name).to.equal('wake');
        if (method === 'fail') throw new Error('no');
        return undefined;
      },
      onReminder: (name, data, ctx) => Promise.resolve(void fires.push({ id, name, at: ctx.clock.now(), dueAt: 0 })),
    }));
    await runtime.start();
    await runtime.invoke('t', 'x', 'fail').catch(() => undefined);
    await clock.advance(1000);
    expect(fires).to.have.length(0);
    await runtime.invoke('t', 'y', 'ok');
    expect(store.transactions).to.have.length(1);
    await clock.advance(0);
    expect(fires.map((f) => f.id)).to.deep.equal(['y']);
    await runtime.stop();
  });

  it('survives a restart: overdue reminders fire once at start-up, acknowledged ones never again', async () => {
    const store = new CountingStore();
    const clock = new FakeClock();
    const t0 = clock.now();
    const fires: { id: string; name: string; at: number; dueAt: number }[] = [];
    const first = await startRecorder(store, clock, fires);
    await first.createReminder('t', 'a', 'once', { dueTimeMs: 100 });
    await first.createReminder('t', 'b', 'later', { dueTimeMs: 5000 });
    await first.createReminder('t', 'c', 'periodic', { dueTimeMs: 1000, periodMs: 1000 });
    await clock.advance(100); // 'once' fires and is acknowledged
    await first.stop();

    await clock.advance(10_500); // down for a while: 'later' and several periods of 'periodic' are missed
    const second = await startRecorder(store, clock, fires);
    await clock.advance(0);
    // Overdue reminders fire in due-time order (periodic was due at 1000, later at 5000).
    expect(fires.map((f) => `${f.id}/${f.name}@${f.at - t0}`)).to.deep.equal(['a/once@100', 'c/periodic@10600', 'b/later@10600']);
    await clock.advance(400); // the periodic reminder continues on its grid, missed periods are not replayed
    expect(fires.map((f) => `${f.id}/${f.name}@${f.at - t0}`)).to.deep.equal(['a/once@100', 'c/periodic@10600', 'b/later@10600', 'c/periodic@11000']);
    await second.stop();
  });

  it('advanceInMemory: fires on its period without a store write per fire; after a restart it fires at once', async () => {
    const store = new CountingStore();
    const clock = new FakeClock();
    const t0 = clock.now();
    const fires: { id: string; name: string; at: number; dueAt: number }[] = [];
    const first = await startRecorder(store, clock, fires);
    await first.createReminder('t', 'a', 'lease', { dueTimeMs: 1000, periodMs: 5000, advanceInMemory: true });
    const writesAfterCreate = store.transactions.length;
    await clock.advance(11_000);
    expect(fires.map((f) => f.at - t0)).to.deep.equal([1000, 6000, 11_000]);
    expect(store.transactions.length).to.equal(writesAfterCreate); // no write per fire
    expect((await first.getReminder('t', 'a', 'lease'))?.dueAt).to.equal(t0 + 16_000);
    await first.stop();

    await clock.advance(100); // restart well before the next in-memory due time (16,000)
    const second = await startRecorder(store, clock, fires);
    await clock.advance(0);
    // The stored due time is still the first one: the lease fires at once after the restart.
    expect(fires.map((f) => f.at - t0)).to.deep.equal([1000, 6000, 11_000, 11_100]);
    await clock.advance(5000);
    expect(fires.map((f) => f.at - t0)).to.deep.equal([1000, 6000, 11_000, 11_100, 16_000]);
    await second.deleteReminder('t', 'a', 'lease');
    await clock.advance(20_000);
    expect(fires).to.have.length(5);
    await second.stop();
  });

  it('leaseIdle: a lease whose work is in hand is parked (no turn, no write, no further fire) until wakeLease; then it resumes its period', async () => {
    const store = new CountingStore();
    const clock = new FakeClock();
    const t0 = clock.now();
    const fires: { id: string; name: string; at: number; dueAt: number }[] = [];
    let inHand = true;
    const runtime = setup({ store, clock }).runtime;
    runtime.registerType('t', reminderRecorder(fires), { leaseIdle: (id, name) => inHand && id === 'a' && name === 'lease' });
    await runtime.start();
    await runtime.createReminder('t', 'a', 'lease', { dueTimeMs: 1000, periodMs: 5000, advanceInMemory: true });
    await runtime.createReminder('t', 'a', 'plain', { dueTimeMs: 1000, periodMs: 5000 });
    await runtime.createReminder('t', 'b', 'lease', { dueTimeMs: 1000, periodMs: 5000, advanceInMemory: true });
    const writesAfterCreate = store.transactions.length;
    await clock.advance(6000);
    // a's lease was in hand at its first fire: parked, no turn; the plain reminder (not a lease) and b's lease fired as turns.
    const firesOf = (id: string, name: string) => fires.filter((f) => f.id === id && f.name === name).map((f) => f.at - t0);
    expect(fires.map((f) => `${f.id}/${f.name}@${f.at - t0}`).sort()).to.deep.equal(['a/plain@1000', 'a/plain@6000', 'b/lease@1000', 'b/lease@6000']);
    expect(runtime.status().find((s) => s.type === 't')?.count, 'a and b are active (a for its plain reminder only)').to.equal(2);
    inHand = false;
    await clock.advance(5000);
    expect(firesOf('a', 'lease'), 'parked: not fired again by itself, even with its work no longer in hand').to.deep.equal([]);
    runtime.wakeLease('t', 'b', 'lease'); // not parked: left alone (no second schedule)
    runtime.wakeLease('t', 'a', 'lease');
    runtime.wakeLease('t', 'a', 'lease'); // a second wake finds nothing parked
    await clock.advance(5000);
    expect(firesOf('a', 'lease'), 'woken at 11 s: fires on its period, at 16 s, as a turn').to.deep.equal([16_000]);
    expect(firesOf('b', 'lease')).to.deep.equal([1000, 6000, 11_000, 16_000]);
    const writes = store.transactions.length - writesAfterCreate;
    expect(writes, 'the plain reminder writes its next due time at each of its 4 fires; the leases write nothing').to.equal(4);

    // Parked again, then replaced: the new reminder is scheduled on its own, the parked one is forgotten.
    inHand = true;
    await clock.advance(5000);
    expect(firesOf('a', 'lease')).to.deep.equal([16_000]);
    await runtime.createReminder('t', 'a', 'lease', { dueTimeMs: 2000, periodMs: 5000, advanceInMemory: true });
    inHand = false;
    await clock.advance(2000);
    expect(firesOf('a', 'lease'), 'the replacement fires at its own due time').to.deep.equal([16_000, 23_000]);
    await runtime.stop();
  });

  it('advanceInMemory: a lease not due yet also fires at once when its actor is loaded anew (restart or failover)', async () => {
    const store = new CountingStore();
    const clock = new FakeClock();
    const t0 = clock.now();
    const fires: { id: string; name: string; at: number; dueAt: number }[] = [];
    const first = await startRecorder(store, clock, fires);
    await first.createReminder('t', 'a', 'lease', { dueTimeMs: 5000, periodMs: 30_000, advanceInMemory: true });
    await first.createReminder('t', 'b', 'plain', { dueTimeMs: 5000 });
    await first.stop();
    await clock.advance(1000); // the new host loads them 4 s before their due time
    const second = await startRecorder(store, clock, fires);
    await clock.advance(0);
    expect(fires.map((f) => `${f.id}/${f.name}@${f.at - t0}`)).to.deep.equal(['a/lease@1000']);
    await clock.advance(4000);
    expect(fires.map((f) => `${f.id}/${f.name}@${f.at - t0}`)).to.deep.equal(['a/lease@1000', 'b/plain@5000']);
    await second.stop();
  });

  it('keeps large reminder data out of the partition document, across restarts, and removes it with the reminder', async () => {
    const store = new CountingStore();
    const clock = new FakeClock();
    const big = Buffer.alloc(10_000, 'x');
    const fires: { id: string; name: string; at: number; dueAt: number; data?: string }[] = [];
    const first = await startRecorder(store, clock, fires);
    await first.createReminder('t', 'a', 'big', { dueTimeMs: 1000, periodMs: 1000, repetitions: 2, data: big });
    await first.createReminder('t', 'a', 'small', { dueTimeMs: 5000, data: Buffer.from('s') });
    const written = store.transactions.flat().filter((op) => op.operation === 'upsert');
    const partitionWrites = written.filter((op) => /\|\|\|reminders\|\|t\|\|\d+$/.test(op.request.key));
    expect(partitionWrites.every((op) => op.operation === 'upsert' && op.request.value.length < 1000)).to.equal(true);
    expect(written.filter((op) => op.request.key === 'app|||reminders||t||data||a||big')).to.have.length(1);
    await first.stop();

    const second = await startRecorder(store, clock, fires);
    const before = store.transactions.length;
    await clock.advance(3000);
    expect(fires.map((f) => [f.name, f.data?.length])).to.deep.equal([
      ['big', 10_000],
      ['big', 10_000],
    ]);
    // The second period did not rewrite the data; the last fire deleted it with the reminder.
    const later = store.transactions.slice(before).flat();
    expect(later.filter((op) => op.request.key === 'app|||reminders||t||data||a||big').map((op) => op.operation)).to.deep.equal(['delete']);
    expect(await store.get({ key: 'app|||reminders||t||data||a||big' })).to.equal(undefined);
    await second.stop();
  });

  it('loads the reminders of a type registered after start', async () => {
    const store = new CountingStore();
    const clock = new FakeClock();
    const fires: { id: string; name: string; at: number; dueAt: number }[] = [];
    const first = setup({ store, clock }).runtime;
    first.registerType('late', reminderRecorder(fires));
    await first.start();
    await first.createReminder('late', 'a', 'r', { dueTimeMs: 50 });
    await first.stop();
    const second = setup({ store, clock }).runtime;
    await second.start();
    second.registerType('late', reminderRecorder(fires));
    await clock.advance(100);
    expect(fires.map((f) => f.id)).to.deep.equal(['a']);
    await second.stop();
  });
});

describe('actors: timers', () => {
  it('fires periodic timers as turns and drops them with the activation', async () => {
    const { runtime, clock } = setup({ idleTimeoutMs: 1000 });
    const ticks: number[] = [];
    runtime.registerType('t', () => ({
      invoke(method, data, ctx) {
        if (method === 'start') ctx.createTimer('tick', { dueTimeMs: 100, periodMs: 200, data: Buffer.from('x') });
        if (method === 'stop') ctx.deleteTimer('tick');
        return Promise.resolve(undefined);
      },
      onTimer: (name, data, ctx) => Promise.resolve(void ticks.push(ctx.clock.now())),
    }));
    await runtime.start();
    const t0 = clock.now();
    await runtime.invoke('t', 'a', 'start');
    await clock.advance(700);
    expect(ticks.map((t) => t - t0)).to.deep.equal([100, 300, 500, 700]);
    // Timer turns are not activity: the actor still deactivates 1000 ms after its last call, and the timer dies.
    await clock.advance(300);
    expect(runtime.activeCount('t')).to.equal(0);
    const count = ticks.length;
    await clock.advance(5000);
    expect(ticks).to.have.length(count);
    await runtime.invoke('t', 'b', 'start');
    await runtime.invoke('t', 'b', 'stop');
    await clock.advance(1000);
    expect(ticks).to.have.length(count);
    await runtime.stop();
  });
});
