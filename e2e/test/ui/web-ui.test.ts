import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OrchestrationStatus } from '@dapr/durabletask-js/orchestration/enum/orchestration-status.enum.js';
import { chromium, type Browser, type Page } from 'playwright-core';
import { RawWorker, SvcdProcess, actorStore, eventually } from '@svc/runtime/test-support';
import { harnessPerSuite, type WorkflowHarness } from '../workflow/support/harness.js';

/** Debian's chromium (scripts/ensure-tools.sh installs it); playwright-core downloads no browser. */
const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';
/** Flags for a closed network: without them Chromium keeps trying to reach Google's hosts. */
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const SCREENSHOTS = process.env.SVC_SCREENSHOTS_DIR ?? path.join(os.tmpdir(), 'svc-ui-screenshots');

async function launch(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/** Clicks the dialog's Confirm after filling its fields. */
async function confirm(page: Page, fields: Record<string, string> = {}): Promise<void> {
  const dialog = page.locator('dialog.confirm[open]');
  for (const [name, value] of Object.entries(fields)) await dialog.locator(`[name="${name}"]`).fill(value);
  await dialog.locator('[data-action="confirm"]').click();
}

const statusOnPage = (page: Page) => page.locator('h1 .status');

describe('web UI in Chromium (real svcd, real SDK worker)', function () {
  this.timeout(180_000);
  let h: WorkflowHarness;
  let browser: Browser;
  let page: Page;
  const offOrigin: string[] = [];

  harnessPerSuite({ store: 'sqlite' }, (started) => (h = started));

  before(async () => {
    const client = h.client();
    for (const id of ['ui-wait-1', 'ui-wait-2', 'ui-wait-3']) await client.scheduleNewOrchestration('approval', undefined, id);
    await client.scheduleNewOrchestration('echo', { hello: 'world' }, 'ui-echo');
    await client.scheduleNewOrchestration('failing', undefined, 'ui-failed');
    // An activity of milliseconds, then a timer of 8 s: the activity is a sliver of the instance's time.
    await client.scheduleNewOrchestration('steps', { count: 1, timerEvery: 1, timerMs: 8000 }, 'ui-steps');
    for (const id of ['ui-echo', 'ui-failed', 'ui-steps']) await client.waitForOrchestrationCompletion(id, false, 60);
    for (const id of ['ui-wait-1', 'ui-wait-2', 'ui-wait-3']) await client.waitForOrchestrationStart(id, false, 60);
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // Works offline: everything the page loads comes from svcd itself.
    page.on('request', (r) => {
      if (!r.url().startsWith(h.svcd.httpUrl)) offOrigin.push(r.url());
    });
  });
  after(async () => {
    await browser?.close();
  });

  it('lists the instances, filters them, and follows new ones live', async () => {
    await page.goto(`${h.svcd.httpUrl}/ui/`);
    for (const id of ['ui-wait-1', 'ui-echo', 'ui-failed']) await page.locator(`tr[data-instance-id="${id}"]`).waitFor();
    expect(await page.locator('tr[data-instance-id="ui-failed"] .status').textContent()).to.equal('FAILED');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'list.png'), fullPage: true });

    await h.client().scheduleNewOrchestration('approval', undefined, 'ui-live');
    await page.locator('tr[data-instance-id="ui-live"]').waitFor({ timeout: 10_000 });
    expect(await page.locator('#instances tbody tr').first().getAttribute('data-instance-id'), 'newest update first').to.be.oneOf(['ui-live']);

    // A status chip applies at once (no Apply), and the address says what is filtered.
    await page.click('#status-filter label[data-status="FAILED"]');
    await eventually('only the failed instance', async () => (await page.locator('#instances tbody tr').count()) === 1);
    expect(await page.locator('#instances tbody tr').getAttribute('data-instance-id')).to.equal('ui-failed');
    expect(page.url()).to.include('status=FAILED');
    await page.click('#status-filter label[data-status="COMPLETED"]');
    await page.locator('tr[data-instance-id="ui-echo"]').waitFor();
    expect(decodeURIComponent(page.url())).to.include('status=COMPLETED,FAILED');
    expect(await page.locator('#status-filter input:checked').count()).to.equal(2);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'list-status-chips.png'), fullPage: true });
    await page.click('#status-filter label[data-status="COMPLETED"]');
    await eventually('the chip unset: failed only again', async () => (await page.locator('#instances tbody tr').count()) === 1);
    await page.fill('input[name="instanceIDPrefix"]', 'nothing-like-this');
    await page.click('#filters button[type="submit"]');
    await page.getByText('No workflow instances match.').waitFor();
  });

  it('says what a JS SDK instance waits for: an event its SDK does not name', async () => {
    await page.goto(`${h.svcd.httpUrl}/ui/#/instances/ui-wait-3`);
    await page.locator('#waiting li[data-kind="unnamed"]').waitFor();
    expect(await page.locator('#waiting li').count(), 'nothing else pending').to.equal(1);
    expect(await page.locator('#waiting').textContent()).to.include('does not say which event');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'instance-waiting-unnamed.png'), fullPage: true });
  });

  it('draws the timeline under a labelled time axis, a step of milliseconds still a few pixels wide', async () => {
    await page.goto(`${h.svcd.httpUrl}/ui/#/instances/ui-steps`);
    await page.locator('#timeline .axis .tick').first().waitFor();
    expect(await page.locator('#timeline .axis .tick').count()).to.be.at.least(3);
    expect(await page.locator('#timeline .axis .tick').first().textContent(), 'time since the start').to.match(/^0(\.0+)? s$/);
    const activity = page.locator('#timeline tr[data-kind="activity"]');
    const took = Number.parseFloat((await activity.locator('td').nth(2).textContent()) ?? '');
    const lane = await activity.locator('.lane').boundingBox();
    const bar = await activity.locator('.bar').boundingBox();
    expect(took, 'a short activity (ms)').to.be.below(200);
    expect((took / 8000) * lane!.width, 'drawn to scale it would be a few pixels at most').to.be.below(4);
    expect(bar!.width).to.be.at.least(5);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'timeline-axis.png'), fullPage: true });
  });

  it('starts a workflow from the start form and shows it, then lists it', async () => {
    await page.goto(`${h.svcd.httpUrl}/ui/#/`);
    await page.click('[data-action="start"]');
    const dialog = page.locator('dialog.confirm[open]');
    await dialog.locator('[name="workflowName"]').fill('echo');
    await dialog.locator('[name="instanceId"]').fill('ui-started');
    await dialog.locator('[name="input"]').fill('{"from":"the form"}');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'start-form.png'), fullPage: true });
    await dialog.locator('[data-action="confirm"]').click();
    await page.waitForURL(/#\/instances\/ui-started$/);
    await eventually('COMPLETED on the page', async () => (await statusOnPage(page).textContent()) === 'COMPLETED', 15_000);
    expect(await page.locator('#output').textContent()).to.include('"from": "the form"');
    await page.click('a[href="#/"]');
    await page.locator('tr[data-instance-id="ui-started"]').waitFor();
  });

  it('shows the runtime: the connected worker, the components, subscriptions and actors', async () => {
    await page.goto(`${h.svcd.httpUrl}/ui/#/runtime`);
    await page.locator('#workers tbody tr').first().waitFor();
    expect(await page.locator('#workers tbody tr').count()).to.equal(1);
    expect(await page.locator('#workers tbody tr td').nth(1).textContent(), 'the worker\'s address').to.match(/:\d+$/);
    const components = await page.locator('#components tbody').textContent();
    expect(components).to.include('wfstore').and.include('state.sqlite');
    for (const section of ['#subscriptions', '#actors']) await page.locator(section).waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'runtime.png'), fullPage: true });
  });

  it('opens an instance, raises an event with confirmation and watches it complete', async () => {
    await page.goto(`${h.svcd.httpUrl}/ui/#/`);
    await page.click('a[href="#/instances/ui-wait-1"]');
    await page.locator('#custom-status').getByText('waiting-for-approval').waitFor();
    expect(await statusOnPage(page).textContent()).to.equal('RUNNING');
    await page.click('[data-action="raise"]');
    await confirm(page, { name: 'approval', data: '{"approved":true}' });
    await eventually('COMPLETED on the page', async () => (await statusOnPage(page).textContent()) === 'COMPLETED', 15_000);
    expect(await page.locator('#output').textContent()).to.include('"approved": true');
    expect(await page.locator('#timeline tr[data-kind="event"]').count()).to.equal(1);
    expect(await page.locator('#events tr[data-type="EventRaised"]').count()).to.equal(1);
    expect((await h.client().getOrchestrationState('ui-wait-1'))?.serializedOutput).to.equal('{"decision":{"approved":true}}');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'instance-completed.png'), fullPage: true });
  });

  it('pauses and resumes, terminates, then purges, each after a confirmation (a cancel does nothing)', async () => {
    await page.goto(`${h.svcd.httpUrl}/ui/#/instances/ui-wait-2`);
    await page.locator('[data-action="pause"]').waitFor();
    await page.click('[data-action="terminate"]');
    await page.locator('dialog.confirm[open]').getByText('Cancel').click();
    expect((await h.client().getOrchestrationState('ui-wait-2'))?.runtimeStatus, 'cancelled: still running').to.equal(OrchestrationStatus.RUNNING);

    await page.click('[data-action="pause"]');
    await confirm(page);
    await eventually('SUSPENDED', async () => (await statusOnPage(page).textContent()) === 'SUSPENDED', 15_000);
    await page.click('[data-action="resume"]');
    await confirm(page);
    await eventually('RUNNING again', async () => (await statusOnPage(page).textContent()) === 'RUNNING', 15_000);
    expect(await page.locator('#timeline tr[data-kind="control"]').count()).to.equal(2);

    await page.click('[data-action="terminate"]');
    await confirm(page);
    await eventually('TERMINATED', async () => (await statusOnPage(page).textContent()) === 'TERMINATED', 15_000);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'instance-terminated.png'), fullPage: true });

    await page.click('[data-action="purge"]');
    await confirm(page);
    await page.locator('#notice').getByText('Purged ui-wait-2').waitFor({ timeout: 15_000 });
    expect(page.url()).to.match(/\/ui\/#\/$/);
    expect(await h.client().getOrchestrationState('ui-wait-2')).to.equal(undefined);
  });

  it('shows a failure with its details and reruns it from the failed activity into a new instance', async () => {
    await page.goto(`${h.svcd.httpUrl}/ui/#/instances/ui-failed`);
    await page.locator('#failure p').getByText('kaboom').waitFor();
    const row = page.locator('#timeline tr[data-kind="activity"]');
    expect(await row.getAttribute('data-state')).to.equal('failed');
    await row.locator('[data-action="rerun"]').click();
    await confirm(page, { newInstanceId: 'ui-failed-rerun' });
    await page.waitForURL(/#\/instances\/ui-failed-rerun$/);
    await eventually('the rerun failed again', async () => (await statusOnPage(page).textContent()) === 'FAILED', 15_000);
    expect((await h.client().getOrchestrationState('ui-failed-rerun'))?.runtimeStatus).to.equal(OrchestrationStatus.FAILED);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'instance-failed.png'), fullPage: true });
  });

  it('loaded nothing from anywhere but svcd', () => {
    expect(offOrigin).to.deep.equal([]);
  });
});

/** A timer that never fires: how Dapr's Go, Python, Java and .NET SDKs wait for an event without timeout. */
const FOR_EVER = { seconds: '253402300799', nanos: 999_999_999 };

describe('web UI and a worker that names what it waits for (timer origins, raw gRPC worker)', function () {
  this.timeout(120_000);
  let h: WorkflowHarness;
  let browser: Browser;
  let page: Page;
  let w: RawWorker;

  harnessPerSuite({ store: 'sqlite', worker: false }, (started) => (h = started));

  before(async () => {
    w = new RawWorker(h.svcd.grpcAddress);
    w.connect();
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  });
  after(async () => {
    w?.close();
    await browser?.close();
  });

  it('shows the activity with its attempt and worker and the awaited event, and offers that name when raising one', async () => {
    await h.start('order', undefined, 'ui-named');
    const first = await w.orchestrationItem('ui-named');
    const actions = [
      { id: 0, scheduleTask: { name: 'charge', taskExecutionId: 'call-1' } },
      { id: 1, createTimer: { fireAt: FOR_EVER, name: 'approval', externalEvent: { name: 'approval' } } },
    ];
    expect(await w.completeOrchestration('ui-named', actions, first.completionToken)).to.equal(null);

    await page.goto(`${h.svcd.httpUrl}/ui/#/instances/ui-named`);
    await page.locator('#waiting li[data-kind="event"] .event-name').getByText('approval').waitFor();
    await page.locator('#waiting li[data-kind="activity"]').getByText(/charge.*attempt 1, running on worker #\d+/).waitFor();
    expect(await page.locator('#waiting li[data-kind="event"]').textContent()).to.include('no timeout');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'instance-waiting.png'), fullPage: true });

    await page.click('[data-action="raise"]');
    const list = await page.locator('dialog.confirm[open] [name="name"]').getAttribute('list');
    const options = page.locator(`dialog.confirm[open] datalist#${list} option`);
    const offered = await Promise.all(Array.from({ length: await options.count() }, (_, i) => options.nth(i).getAttribute('value')));
    expect(offered, 'the event name field suggests what the instance waits for').to.deep.equal(['approval']);
    expect(await page.locator('dialog.confirm[open] [name="name"]').inputValue(), 'the only one, filled in').to.equal('approval');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'raise-event-suggested.png'), fullPage: true });
    const seen = w.items.length;
    await confirm(page, { name: 'approval' });
    const turn = await w.nextItem(seen + 1);
    expect(turn.orchestratorRequest?.newEvents.map((e) => e.eventRaised?.name ?? e.eventType)).to.deep.equal(['orchestratorStarted', 'approval']);
    const done = { id: 2, completeOrchestration: { orchestrationStatus: 'ORCHESTRATION_STATUS_COMPLETED' as const, result: { value: '"approved"' } } };
    expect(await w.completeOrchestration('ui-named', [done], turn.completionToken)).to.equal(null);
    await eventually('COMPLETED on the page', async () => (await statusOnPage(page).textContent()) === 'COMPLETED', 15_000);
    expect(await page.locator('#waiting').isHidden(), 'a finished instance waits for nothing').to.equal(true);
  });
});

describe('web UI with an API token, and turned off', function () {
  this.timeout(60_000);
  let browser: Browser | undefined;
  const started: SvcdProcess[] = [];
  afterEach(async () => {
    await browser?.close();
    browser = undefined;
    for (const s of started.splice(0)) await s.dispose();
  });

  it('asks for the token, keeps it for the browser session only, and says when it is wrong', async () => {
    const store = actorStore('sqlite', 'ui-token');
    const svcd = await SvcdProcess.start({ appId: store.appId, resources: store.resources, env: { SVC_API_TOKEN: 's3cret' } });
    started.push(svcd);
    const start = await svcd.request('POST', '/v1.0/workflows/svc/order/start?instanceID=tok-1', undefined, { 'svc-api-token': 's3cret' });
    expect(start.status).to.equal(202);
    browser = await launch();
    const page = await browser.newPage();
    await page.goto(`${svcd.httpUrl}/ui/`);
    await page.locator('#token-dialog').waitFor();
    await page.fill('#token-input', 'wrong');
    await page.click('#token-dialog button[type="submit"]');
    await page.locator('#token-dialog').getByText('The token was not accepted.').waitFor();
    await page.fill('#token-input', 's3cret');
    await page.click('#token-dialog button[type="submit"]');
    await page.locator('tr[data-instance-id="tok-1"]').waitFor();
    expect(await page.evaluate("[sessionStorage.getItem('svc-api-token'), localStorage.length]")).to.deep.equal(['s3cret', 0]);
    // A new browser context is a new session: asked again.
    const other = await browser.newPage();
    await other.goto(`${svcd.httpUrl}/ui/`);
    await other.locator('#token-dialog').waitFor();
  });

  it('--enable-ui false: /ui/ is not served', async () => {
    const store = actorStore('sqlite', 'ui-off');
    const svcd = await SvcdProcess.start({ appId: store.appId, resources: store.resources, args: ['--enable-ui', 'false'] });
    started.push(svcd);
    const res = await svcd.request('GET', '/ui/');
    expect(res.status).to.equal(404);
    expect(((await res.json()) as { errorCode: string }).errorCode).to.equal('ERR_NOT_FOUND');
    const on = await SvcdProcess.start({ appId: store.appId, resources: store.resources });
    started.push(on);
    const page = await on.request('GET', '/ui/');
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-security-policy')).to.include("default-src 'self'");
    expect(await page.text()).to.include('<main id="app">');
    expect((await on.request('GET', '/ui/main.js')).headers.get('content-type')).to.include('javascript');
    expect((await on.request('GET', '/ui/../package.json')).status).to.equal(404);
  });
});
