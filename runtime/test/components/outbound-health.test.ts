import { expect } from 'chai';
import { OutboundHealth } from '../../src/components/outbound-health.js';
import type { LoadedComponent } from '../../src/components/manager.js';
import type { Component } from '../../src/components/registry.js';
import type { ComponentSpec } from '../../src/components/spec.js';

function loaded(name: string, instance: Component): LoadedComponent {
  return { spec: { name, type: 'state.fake' } as ComponentSpec, origin: 'built-in', instance };
}

/** A component whose server answers as `answer` says, counting the pings. */
function pinged(answer: () => Promise<void>): Component & { pings: number } {
  const c = {
    pings: 0,
    pingServer: () => {
      c.pings++;
      return answer();
    },
    close: () => Promise.resolve(),
  };
  return c;
}

describe('outbound health', () => {
  it('names each unhealthy component with its reason: its own report first, then its server ping', async () => {
    const components = [
      loaded('fine', pinged(() => Promise.resolve())),
      loaded('down', pinged(() => Promise.reject(new Error('cannot reach Redis: connection is reconnecting')))),
      loaded('sick', { health: () => ({ ok: false, reason: 'socket gone' }), close: () => Promise.resolve() }),
      loaded('plain', { close: () => Promise.resolve() }),
    ];
    const health = new OutboundHealth({ list: () => components }, { pingTimeoutMs: 500, cacheMs: 1_000 });
    expect(await health.problems()).to.deep.equal([
      "component 'down' (state.fake): cannot reach Redis: connection is reconnecting",
      "component 'sick' (state.fake): socket gone",
    ]);
  });

  it('bounds a ping that never answers by the timeout', async () => {
    const hung = loaded('hung', pinged(() => new Promise<void>(() => undefined)));
    const health = new OutboundHealth({ list: () => [hung] }, { pingTimeoutMs: 100, cacheMs: 1_000 });
    const started = Date.now();
    expect(await health.problems()).to.deep.equal(["component 'hung' (state.fake): no answer within 100 ms"]);
    expect(Date.now() - started).to.be.below(1_000);
  });

  it('pings each server at most once per cache period, sharing a ping in flight', async () => {
    let up = true;
    const store = pinged(() => (up ? Promise.resolve() : Promise.reject(new Error('down'))));
    const health = new OutboundHealth({ list: () => [loaded('store', store)] }, { pingTimeoutMs: 500, cacheMs: 200 });
    await Promise.all(Array.from({ length: 20 }, () => health.problems()));
    expect(store.pings).to.equal(1);
    up = false;
    expect(await health.problems()).to.deep.equal([]); // still the cached answer
    await new Promise((r) => setTimeout(r, 250));
    expect(await health.problems()).to.deep.equal(["component 'store' (state.fake): down"]);
    expect(store.pings).to.equal(2);
  });
});
