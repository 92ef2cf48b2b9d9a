/**
 * The distributed lock API of real svcd processes on the shared test Redis, over HTTP and gRPC: Dapr's answers
 * (`{"success"}`, `{"status": n}`), a second owner and a non-owner refused, a holder killed with SIGKILL whose
 * lock is free after its expiry and not before, bad input, and the store in `/v1.0/metadata`.
 */
import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { SvcdProcess, TEST_REDIS_HOST, componentYaml, daprRuntimeClient, deleteRedisKeysWithPrefix } from '../support/index.js';

type Unary = (req: unknown, cb: (err: grpc.ServiceError | null, res?: unknown) => void) => void;

const rpc = <T>(client: Record<string, Unary>, method: string, req: unknown): Promise<T> =>
  new Promise((resolve, reject) => client[method]!.call(client, req, (err, res) => (err ? reject(err) : resolve(res as T))));

describe('distributed lock API (real svcd, lock.redis)', function () {
  this.timeout(60_000);
  // Both svcd share the app id (so the key) and the lock: as two replicas of one app contending for a resource.
  const appId = `locks-${randomUUID()}`;
  const resources = { 'locks.yaml': componentYaml('locks', 'lock.redis', { redisHost: TEST_REDIS_HOST }) };
  let holder: SvcdProcess;
  let other: SvcdProcess;
  let grpcClient: Record<string, Unary>;
  const lock = (svcd: SvcdProcess, body: unknown, store = 'locks') => svcd.request('POST', `/v1.0-alpha1/lock/${store}`, body);
  const unlock = (svcd: SvcdProcess, body: unknown, store = 'locks') => svcd.request('POST', `/v1.0-alpha1/unlock/${store}`, body);
  const answer = async (res: Promise<Response>) => {
    const r = await res;
    return [r.status, await r.json()] as const;
  };

  before(async () => {
    [holder, other] = await Promise.all([SvcdProcess.start({ appId, resources }), SvcdProcess.start({ appId, resources })]);
    grpcClient = daprRuntimeClient<Record<string, Unary>>(`127.0.0.1:${other.ports.grpc}`);
  });
  after(async () => {
    grpcClient && (grpcClient as unknown as grpc.Client).close();
    await Promise.all([holder?.dispose(), other?.dispose()]);
    await deleteRedisKeysWithPrefix(`lock||${appId}||`);
  });

  it('HTTP: grants a free lock, refuses a second owner, answers unlock statuses as numbers', async () => {
    const resourceId = randomUUID();
    expect(await answer(lock(holder, { resourceId, lockOwner: 'a', expiryInSeconds: 30 }))).to.deep.equal([200, { success: true }]);
    expect(await answer(lock(other, { resourceId, lockOwner: 'b', expiryInSeconds: 30 }))).to.deep.equal([200, { success: false }]);
    expect(await answer(unlock(other, { resourceId, lockOwner: 'b' }))).to.deep.equal([200, { status: 2 }]);
    expect(await answer(unlock(holder, { resourceId, lockOwner: 'a' }))).to.deep.equal([200, { status: 0 }]);
    expect(await answer(unlock(holder, { resourceId, lockOwner: 'a' }))).to.deep.equal([200, { status: 1 }]);
    expect(await answer(lock(other, { resourceId, lockOwner: 'b', expiryInSeconds: '30' })), 'expiry as a string, as protojson reads it').to.deep.equal([200, { success: true }]);
  });

  it('lists the lock store in /v1.0/metadata', async () => {
    const { components } = (await (await holder.request('GET', '/v1.0/metadata')).json()) as { components: { name: string; type: string }[] };
    expect(components.map((c) => [c.name, c.type])).to.deep.include(['locks', 'lock.redis']);
  });

  it('gRPC TryLockAlpha1/UnlockAlpha1: the same lock as HTTP, Dapr-identical messages', async () => {
    const resourceId = randomUUID();
    expect(await answer(lock(holder, { resourceId, lockOwner: 'a', expiryInSeconds: 30 }))).to.deep.equal([200, { success: true }]);
    expect(await rpc(grpcClient, 'TryLockAlpha1', { storeName: 'locks', resourceId, lockOwner: 'b', expiryInSeconds: 30 })).to.deep.equal({ success: false });
    expect(await rpc(grpcClient, 'UnlockAlpha1', { storeName: 'locks', resourceId, lockOwner: 'b' })).to.deep.equal({ status: 'LOCK_BELONGS_TO_OTHERS' });
    expect(await rpc(grpcClient, 'UnlockAlpha1', { storeName: 'locks', resourceId, lockOwner: 'a' })).to.deep.equal({ status: 'SUCCESS' });
    expect(await rpc(grpcClient, 'TryLockAlpha1', { storeName: 'locks', resourceId, lockOwner: 'b', expiryInSeconds: 30 })).to.deep.equal({ success: true });
    const bad = await rpc(grpcClient, 'TryLockAlpha1', { storeName: 'nope', resourceId, lockOwner: 'b', expiryInSeconds: 30 }).catch((e: grpc.ServiceError) => e);
    expect((bad as grpc.ServiceError).code).to.equal(grpc.status.INVALID_ARGUMENT);
  });

  it('a holder killed with SIGKILL keeps its lock until the expiry, then another owner takes it', async () => {
    const resourceId = randomUUID();
    expect(await answer(lock(holder, { resourceId, lockOwner: 'doomed', expiryInSeconds: 3 }))).to.deep.equal([200, { success: true }]);
    const taken = Date.now();
    await holder.kill();
    await new Promise((r) => setTimeout(r, 1500));
    expect(await answer(lock(other, { resourceId, lockOwner: 'next', expiryInSeconds: 30 })), 'held until the expiry').to.deep.equal([200, { success: false }]);
    let success = false;
    while (!success) {
      await new Promise((r) => setTimeout(r, 100));
      success = ((await (await lock(other, { resourceId, lockOwner: 'next', expiryInSeconds: 30 })).json()) as { success: boolean }).success;
    }
    expect(Date.now() - taken).to.be.within(2900, 4500);
    expect(await answer(unlock(other, { resourceId, lockOwner: 'doomed' })), 'the dead holder no longer owns it').to.deep.equal([200, { status: 2 }]);
  });

  it('answers bad input and unknown stores as Dapr (400 ERR_MALFORMED_REQUEST, 400 ERR_LOCK_STORE_NOT_FOUND)', async () => {
    const code = async (res: Promise<Response>) => {
      const r = await res;
      return [r.status, ((await r.json()) as { errorCode: string }).errorCode];
    };
    expect(await code(lock(other, { resourceId: 'r', lockOwner: 'a', expiryInSeconds: 0 }))).to.deep.equal([400, 'ERR_MALFORMED_REQUEST']);
    expect(await code(lock(other, { resourceId: 'r', lockOwner: 'a' }))).to.deep.equal([400, 'ERR_MALFORMED_REQUEST']);
    expect(await code(lock(other, { lockOwner: 'a', expiryInSeconds: 5 }))).to.deep.equal([400, 'ERR_MALFORMED_REQUEST']);
    expect(await code(lock(other, { resourceId: 'r', expiryInSeconds: 5 }))).to.deep.equal([400, 'ERR_MALFORMED_REQUEST']);
    expect(await code(lock(other, { resourceId: 'a||b', lockOwner: 'a', expiryInSeconds: 5 }))).to.deep.equal([400, 'ERR_MALFORMED_REQUEST']);
    expect(await code(lock(other, { resourceId: 'r', lockOwner: 'a', expiryInSeconds: 1.5 }))).to.deep.equal([400, 'ERR_MALFORMED_REQUEST']);
    expect(await code(lock(other, 'not json'))).to.deep.equal([400, 'ERR_MALFORMED_REQUEST']);
    expect(await code(lock(other, { resourceId: 'r', lockOwner: 'a', expiryInSeconds: 5 }, 'nope'))).to.deep.equal([400, 'ERR_LOCK_STORE_NOT_FOUND']);
    expect(await code(unlock(other, { resourceId: 'r', lockOwner: 'a' }, 'nope'))).to.deep.equal([400, 'ERR_LOCK_STORE_NOT_FOUND']);
  });

  it('answers 500 ERR_LOCK_STORE_NOT_CONFIGURED without any lock store', async () => {
    const bare = await SvcdProcess.start({});
    try {
      const r = await lock(bare, { resourceId: 'r', lockOwner: 'a', expiryInSeconds: 5 });
      expect([r.status, ((await r.json()) as { errorCode: string }).errorCode]).to.deep.equal([500, 'ERR_LOCK_STORE_NOT_CONFIGURED']);
    } finally {
      await bare.dispose();
    }
  });
});
