import { expect } from 'chai';
import { ListWatch, type ListWatchSource, type WatchEvent } from '../../src/components/name-resolution/list-watch.js';
import { eventually } from '../support/eventually.js';

interface Obj {
  readonly uid?: string;
  readonly rv: string;
  readonly value?: string;
}

interface OpenWatch {
  readonly from: string;
  readonly send: (event: WatchEvent<Obj>) => void;
  readonly end: (err?: unknown) => void;
  stopped: boolean;
}

/** A collection whose lists answer from `lists` in turn and whose watches the test drives. */
class FakeSource implements ListWatchSource<Obj> {
  readonly watches: OpenWatch[] = [];
  listCalls = 0;

  constructor(private readonly lists: (() => Promise<{ items: Obj[]; resourceVersion: string }>)[]) {}

  list(): Promise<{ items: Obj[]; resourceVersion: string }> {
    const answer = this.lists[Math.min(this.listCalls, this.lists.length - 1)]!;
    this.listCalls++;
    return answer();
  }

  watch(resourceVersion: string, onEvent: (e: WatchEvent<Obj>) => void, onEnd: (err?: unknown) => void): { stop(): void } {
    const w: OpenWatch = { from: resourceVersion, send: onEvent, end: onEnd, stopped: false };
    this.watches.push(w);
    return { stop: () => void (w.stopped = true) };
  }

  get last(): OpenWatch {
    return this.watches[this.watches.length - 1]!;
  }
}

const listed = (resourceVersion: string, ...items: Obj[]) => () => Promise.resolve({ items, resourceVersion });
const failing = (message: string) => () => Promise.reject(new Error(message));

function informer(source: FakeSource, problems: string[] = []): ListWatch<Obj, string | undefined> {
  return new ListWatch(source, {
    key: (o) => o.uid,
    project: (o) => o.value,
    resourceVersion: (o) => o.rv,
    onProblem: (problem) => problems.push(problem),
    backoff: { initialMs: 5, maxMs: 20 },
  });
}

describe('ListWatch (the informer of Kubernetes name resolution)', () => {
  let lw: ListWatch<Obj, string | undefined> | undefined;
  afterEach(() => lw?.stop());

  it('lists, then watches from the list resourceVersion and applies adds, changes and deletes', async () => {
    const source = new FakeSource([listed('10', { uid: 'a', rv: '9', value: 'A' })]);
    lw = informer(source);
    await lw.ready();
    expect([...lw.values()]).to.deep.equal(['A']);
    expect(source.last.from).to.equal('10');
    source.last.send({ type: 'ADDED', object: { uid: 'b', rv: '11', value: 'B' } });
    source.last.send({ type: 'MODIFIED', object: { uid: 'a', rv: '12', value: 'A2' } });
    source.last.send({ type: 'DELETED', object: { uid: 'b', rv: '13' } });
    expect([...lw.values()]).to.deep.equal(['A2']);
  });

  it('resumes an ended watch from the last resourceVersion seen, bookmarks included, without listing again', async () => {
    const source = new FakeSource([listed('10')]);
    lw = informer(source);
    await lw.ready();
    source.last.send({ type: 'ADDED', object: { uid: 'a', rv: '11', value: 'A' } });
    source.last.send({ type: 'BOOKMARK', object: { rv: '15' } });
    // Ending at once counts as a problem (backoff), so that a proxy closing every watch cannot spin.
    source.last.end();
    await eventually('a second watch', () => Promise.resolve(source.watches.length === 2));
    expect(source.last.from).to.equal('15');
    expect(source.listCalls).to.equal(1);
    expect([...lw.values()]).to.deep.equal(['A']);
  });

  it('lists anew after 410 Gone, replacing the copy, and keeps the old copy readable meanwhile', async () => {
    let release: () => void = () => undefined;
    const second = new Promise<void>((resolve) => (release = resolve));
    const source = new FakeSource([listed('10', { uid: 'a', rv: '9', value: 'A' }), () => second.then(listed('30', { uid: 'c', rv: '29', value: 'C' }))]);
    lw = informer(source);
    await lw.ready();
    source.last.send({ type: 'ERROR', object: { rv: '', code: 410 } as Obj });
    source.last.end();
    await eventually('a second list', () => Promise.resolve(source.listCalls === 2));
    expect([...lw.values()]).to.deep.equal(['A']);
    release();
    await eventually('the new list applied', () => Promise.resolve([...lw!.values()].join() === 'C'));
    expect(source.last.from).to.equal('30');
  });

  it('rejects a reader while the first list fails, retries with backoff, and serves once a list succeeds', async () => {
    const problems: string[] = [];
    const source = new FakeSource([failing('403 Forbidden'), failing('403 Forbidden'), listed('5', { uid: 'a', rv: '4', value: 'A' })]);
    lw = informer(source, problems);
    const err = await lw.ready().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).to.equal('403 Forbidden');
    await eventually('a successful list', () => lw!.ready().then(() => true, () => false));
    expect([...lw.values()]).to.deep.equal(['A']);
    expect(problems.slice(0, 2)).to.deep.equal(['list failed: 403 Forbidden', 'list failed: 403 Forbidden']);
  });

  it('retries a failed watch with backoff from the same resourceVersion', async () => {
    const problems: string[] = [];
    const source = new FakeSource([listed('10')]);
    lw = informer(source, problems);
    await lw.ready();
    source.last.end(new Error('ECONNRESET'));
    await eventually('a second watch', () => Promise.resolve(source.watches.length === 2));
    expect(source.last.from).to.equal('10');
    expect(problems).to.deep.equal(['watch failed: ECONNRESET']);
  });

  it('stops its watch and ignores what arrives after stop', async () => {
    const source = new FakeSource([listed('10')]);
    lw = informer(source);
    await lw.ready();
    lw.stop();
    expect(source.last.stopped).to.equal(true);
    source.last.end(new Error('late'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(source.watches).to.have.length(1);
  });
});
