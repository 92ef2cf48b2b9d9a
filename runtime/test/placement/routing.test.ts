import { expect } from 'chai';
import { Router, type PeerCaller } from '../../src/actors/placement/routing.js';
import type { Placement, PlacementResult } from '../../src/actors/types.js';
import { RuntimeError, isRuntimeError } from '../../src/errors/runtime-error.js';

class Unreachable extends Error {}

/** A placement whose answer the test sets; `changed` resolves when the test moves the actor. */
class MovablePlacement implements Placement {
  where: PlacementResult = { local: true };
  suspected = 0;
  #waiters: (() => void)[] = [];
  lookup(): PlacementResult {
    return this.where;
  }
  move(to: PlacementResult): void {
    this.where = to;
    for (const w of this.#waiters.splice(0)) w();
  }
  start(): Promise<void> {
    return Promise.resolve();
  }
  stop(): Promise<void> {
    return Promise.resolve();
  }
  changed(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      this.#waiters.push(resolve);
      setTimeout(resolve, timeoutMs);
    });
  }
  suspect(): void {
    this.suspected++;
  }
  metadata(): Record<string, unknown> {
    return {};
  }
}

function router(placement: Placement, peers: PeerCaller, routeTimeoutMs = 2_000): Router {
  return new Router({ placement, peers, unreachable: (err) => err instanceof Unreachable, routeTimeoutMs });
}

const notOwner = () => new RuntimeError('ERR_ACTOR_NOT_OWNER', 'moved');

describe('placement: routing a call to the owner', () => {
  it('runs locally when owned here, on the owner otherwise', async () => {
    const placement = new MovablePlacement();
    const sent: string[] = [];
    const peers: PeerCaller = { call: <T>(address: string, method: string) => (sent.push(`${address}/${method}`), Promise.resolve('remote' as T)) };
    const r = router(placement, peers);
    expect(await r.run('a', 't', 'M', {}, () => Promise.resolve('local'))).to.equal('local');
    placement.move({ local: false, address: 'peer:1' });
    expect(await r.run('a', 't', 'M', {}, () => Promise.resolve('local'))).to.equal('remote');
    expect(sent).to.deep.equal(['peer:1/M']);
  });

  it('gives a call that ran on its owner longer than the route timeout (a wait) the whole budget again when the partition moves', async () => {
    const placement = new MovablePlacement();
    const r = router(placement, { call: () => Promise.resolve('new owner' as never) }, 100);
    let attempts = 0;
    const answer = await r.run('a', 't', 'M', {}, async () => {
      attempts++;
      await new Promise((resolve) => setTimeout(resolve, 250)); // the owner held the call, then lost the partition
      setTimeout(() => placement.move({ local: false, address: 'new:1' }), 30);
      throw notOwner();
    });
    expect([answer, attempts]).to.deep.equal(['new owner', 1]);
  });

  it('retries after the view changes when the owner says it no longer owns the actor, or cannot be reached', async () => {
    const placement = new MovablePlacement();
    placement.move({ local: false, address: 'old:1' });
    const peers: PeerCaller = {
      call: <T>(address: string) => {
        if (address === 'old:1') {
          setTimeout(() => placement.move({ local: false, address: 'dead:1' }), 20);
          return Promise.reject(notOwner());
        }
        if (address === 'dead:1') {
          setTimeout(() => placement.move({ local: true }), 20);
          return Promise.reject(new Unreachable('refused'));
        }
        return Promise.resolve(address as T);
      },
    };
    expect(await router(placement, peers).run('a', 't', 'M', {}, () => Promise.resolve('ran here'))).to.equal('ran here');
    expect(placement.suspected).to.equal(1);
  });

  it("keeps an error the owner answered with: the caller gets the owner's answer", async () => {
    const placement = new MovablePlacement();
    placement.move({ local: false, address: 'peer:1' });
    let calls = 0;
    const peers: PeerCaller = { call: () => (calls++, Promise.reject(new RuntimeError('ERR_INSTANCE_ID_NOT_FOUND', 'no such instance'))) };
    const err = await router(placement, peers).run('a', 't', 'M', {}, () => Promise.resolve('x')).catch((e: unknown) => e);
    expect(isRuntimeError(err, 'ERR_INSTANCE_ID_NOT_FOUND')).to.equal(true);
    expect(calls).to.equal(1);
  });

  it('gives up with ERR_ACTOR_PLACEMENT_UNAVAILABLE when no owner appears in time', async () => {
    const placement = new MovablePlacement();
    placement.move({ local: false });
    const peers: PeerCaller = { call: () => Promise.reject(new Error('never called')) };
    const err = await router(placement, peers, 150).run('a', 't', 'M', {}, () => Promise.resolve('x')).catch((e: unknown) => e);
    expect(isRuntimeError(err, 'ERR_ACTOR_PLACEMENT_UNAVAILABLE')).to.equal(true);
    expect((err as Error).message).to.contain('t/a');
  });
});
