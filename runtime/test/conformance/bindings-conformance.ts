/**
 * What every binding must do, checked through a real svcd and a real app. Input side: events reach the app at the
 * route in the component's metadata, with the event's data as the body; one the app failed is delivered again at
 * once (the delivery policy's retry, not the binding's next event). Output side: the operations the binding lists
 * are in `/v1.0/metadata`, a listed operation answers 2xx, an unlisted one 400 ERR_BINDING_OPERATION_NOT_SUPPORTED;
 * an input-only binding cannot be invoked (404). `componentYaml(metadata)` is the Component named `binding`.
 */
import { expect } from 'chai';
import { SubscriberApp } from '../support/subscriber-app.js';
import { SvcdProcess, type SvcdOptions } from '../support/svcd-process.js';

export interface BindingConformanceOptions {
  readonly componentYaml: (metadata: Record<string, string>) => string;
  /** Input side: makes the binding produce one event (none for a binding that produces them on its own). */
  readonly input?: { readonly trigger: (svcd: SvcdProcess) => Promise<void> };
  /** Output side: an operation the binding supports, with the request that exercises it. */
  readonly output?: { readonly operation: string; readonly request: Record<string, unknown> };
  /** Runs before svcd starts (e.g. a pluggable component process); what it returns is added to svcd's options. */
  readonly setUp?: () => Promise<Partial<SvcdOptions>>;
  readonly tearDown?: () => Promise<void>;
}

export function describeBindingConformance(label: string, opts: BindingConformanceOptions): void {
  describe(`bindings conformance: ${label}`, function () {
    this.timeout(60_000);
    let app: SubscriberApp;
    let svcd: SvcdProcess;
    const invoke = (body: unknown) => svcd.request('POST', '/v1.0/bindings/binding', body);

    before(async () => {
      app = await SubscriberApp.start();
      const extra = (await opts.setUp?.()) ?? {};
      svcd = await SvcdProcess.start({ ...extra, resources: { 'binding.yaml': opts.componentYaml({ route: '/in', retryInitialInterval: '20ms' }) }, args: ['--app-port', String(app.port)] });
    });
    after(async () => {
      await svcd?.dispose();
      await app?.stop();
      await opts.tearDown?.();
    });

    if (opts.input) {
      const input = opts.input;
      it('delivers events to the route in the component metadata', async () => {
        await input.trigger(svcd);
        const [first] = await app.waitFor('/in', 1, 10_000);
        expect(first!.headers['content-type']).to.be.a('string');
        expect(app.to('/binding'), 'the route replaces /<name>').to.have.length(0);
      });

      it('delivers an event the app failed again at once, with the same data', async () => {
        const before = app.to('/in').length;
        app.answers.set('/in', [{ status: 500 }, { status: 200 }]);
        await input.trigger(svcd);
        const got = await app.waitFor('/in', before + 2, 10_000);
        const [failed, retried] = got.slice(before);
        expect(retried!.text).to.equal(failed!.text);
        expect(retried!.receivedAt - failed!.receivedAt, 'a retry after retryInitialInterval, not the next event').to.be.below(500);
      });
    }

    if (opts.output) {
      const output = opts.output;
      it('lists its operations in /v1.0/metadata and answers 2xx for a listed one', async () => {
        const meta = (await (await svcd.request('GET', '/v1.0/metadata')).json()) as { components: Array<{ name: string; capabilities: string[] }> };
        const caps = meta.components.find((c) => c.name === 'binding')!.capabilities;
        expect(caps).to.include.members(['OUTPUT_BINDING', output.operation]);
        const res = await invoke({ operation: output.operation, ...output.request });
        expect(res.status, await res.clone().text()).to.be.within(200, 204);
      });

      it('refuses an operation it does not list with 400 ERR_BINDING_OPERATION_NOT_SUPPORTED', async () => {
        const res = await invoke({ operation: 'no-such-operation' });
        expect([res.status, ((await res.json()) as { errorCode: string }).errorCode]).to.deep.equal([400, 'ERR_BINDING_OPERATION_NOT_SUPPORTED']);
      });
    } else {
      it('cannot be invoked: 404 ERR_BINDING_NOT_FOUND', async () => {
        const res = await invoke({ operation: 'create' });
        expect([res.status, ((await res.json()) as { errorCode: string }).errorCode]).to.deep.equal([404, 'ERR_BINDING_NOT_FOUND']);
      });
    }
  });
}
