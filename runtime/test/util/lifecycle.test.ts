import { expect } from 'chai';
import { createLogger } from '../../src/log/logger.js';
import { Lifecycle, together, type Part } from '../../src/util/lifecycle.js';

const log = createLogger({ level: 'error', json: true });

/** A part whose start waits until `finish` is called, and that records what happened to it in `events`. */
function part(name: string, events: string[], fails?: Error): Part & { finish: () => void } {
  let finish!: () => void;
  const started = new Promise<void>((resolve) => (finish = resolve));
  return {
    name,
    finish: () => finish(),
    start: async () => {
      events.push(`start ${name}`);
      await started;
      if (fails) throw fails;
      events.push(`started ${name}`);
    },
    stop: () => {
      events.push(`stop ${name}`);
      return Promise.resolve();
    },
  };
}

describe('Lifecycle and together', () => {
  it('starts the parts of a group at once, and stops them in reverse order', async () => {
    const events: string[] = [];
    const a = part('a', events);
    const b = part('b', events);
    const lifecycle = new Lifecycle(log).add(together('a, b', [a, b], log));
    const starting = lifecycle.startAll();
    await new Promise((r) => setImmediate(r));
    // Both started before either finished.
    expect(events).to.deep.equal(['start a', 'start b']);
    b.finish();
    a.finish();
    await starting;
    await lifecycle.stopAll();
    expect(events.slice(2)).to.deep.equal(['started b', 'started a', 'stop b', 'stop a']);
  });

  it('stops the parts that started when one fails, and throws the first failure in their order', async () => {
    const events: string[] = [];
    const a = part('a', events, new Error('a failed'));
    const b = part('b', events);
    const c = part('c', events, new Error('c failed'));
    const group = together('a, b, c', [a, b, c], log);
    const starting = group.start();
    // c fails first in time; a's failure is the one reported, as if they had started one after the other.
    c.finish();
    b.finish();
    await new Promise((r) => setImmediate(r));
    a.finish();
    let thrown: unknown;
    await starting.catch((err: unknown) => (thrown = err));
    expect((thrown as Error).message).to.equal('a failed');
    expect(events.filter((e) => e.startsWith('stop'))).to.deep.equal(['stop b']);
  });
});
