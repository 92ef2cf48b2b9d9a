/**
 * The web UI's link from a workflow instance to its trace (`--trace-viewer-url`), in Chromium. The engine runs in
 * this process (`InProcessRuntime`: the SQLite store, the Durable Task service, the HTTP API and the UI as svcd
 * wires them) because the spans and the tracer provider that make an instance traced are in-process state: the
 * test registers a real OpenTelemetry SDK (`InMemoryTracing`) as svcd registers its own.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import { InMemoryTracing, InProcessRuntime, rawClient, removeTempFolder, tempFolder } from '@svc/runtime/test-support';

const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function startTraced(address: string, instanceId: string, traceParent: string): Promise<void> {
  const client = rawClient(address);
  return new Promise<void>((resolve, reject) =>
    client.StartInstance({ instanceId, name: 'traced', parentTraceContext: { traceParent, spanID: '', traceState: null } }, (err) => (err ? reject(err) : resolve())),
  ).finally(() => client.close());
}

describe('web UI: a traced workflow instance links to its trace (Chromium)', function () {
  this.timeout(120_000);
  let tracing: InMemoryTracing;
  let browser: Browser;
  const dirs: string[] = [];
  const runtimes: InProcessRuntime[] = [];

  before(async () => {
    tracing = InMemoryTracing.install();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    for (const rt of runtimes.splice(0)) await rt.stop();
    for (const dir of dirs.splice(0)) removeTempFolder(dir);
    await tracing?.uninstall();
  });

  async function runtime(traceViewerUrl?: string): Promise<InProcessRuntime> {
    const dir = tempFolder('svc-ui-trace-');
    dirs.push(dir);
    const rt = await InProcessRuntime.start(dir, traceViewerUrl !== undefined ? { traceViewerUrl } : {});
    runtimes.push(rt);
    return rt;
  }

  it('shows the trace id and a link to the viewer the flag names', async () => {
    const rt = await runtime('http://jaeger.example:16686/trace/{traceId}');
    const traceId = randomBytes(16).toString('hex');
    await startTraced(rt.grpcAddress, 'ui-traced', `00-${traceId}-${randomBytes(8).toString('hex')}-01`);
    const page = await browser.newPage();
    await page.goto(`${rt.httpUrl}/ui/#/instances/ui-traced`);
    await page.locator('#trace-link').waitFor();
    expect(await page.locator('#trace code').textContent()).to.equal(traceId);
    expect(await page.locator('#trace-link').getAttribute('href')).to.equal(`http://jaeger.example:16686/trace/${traceId}`);
    expect(await page.locator('#trace-link').getAttribute('rel')).to.contain('noopener');
    await page.close();
  });

  it('shows the trace id without a link when no viewer is configured, and nothing for an untraced instance', async () => {
    const rt = await runtime();
    const traceId = randomBytes(16).toString('hex');
    await startTraced(rt.grpcAddress, 'ui-traced-2', `00-${traceId}-${randomBytes(8).toString('hex')}-01`);
    await startTraced(rt.grpcAddress, 'ui-unsampled', `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-00`);
    const page = await browser.newPage();
    await page.goto(`${rt.httpUrl}/ui/#/instances/ui-traced-2`);
    await page.locator('#trace code').waitFor();
    expect(await page.locator('#trace code').textContent()).to.equal(traceId);
    expect(await page.locator('#trace-link').count()).to.equal(0);
    await page.goto(`${rt.httpUrl}/ui/#/instances/ui-unsampled`);
    await page.locator('#custom-status').waitFor();
    expect(await page.locator('#trace').count(), 'a trace not sampled is not stored').to.equal(0);
    await page.close();
  });
});
