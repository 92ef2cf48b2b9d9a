import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OrchestrationStatus } from '@dapr/durabletask-js/orchestration/enum/orchestration-status.enum.js';
import { chromium, type Browser, type Page } from 'playwright-core';
import { SvcdProcess, actorStore, eventually } from '@svc/runtime/test-support';
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
    for (const id of ['ui-echo', 'ui-failed']) await client.waitForOrchestrationCompletion(id, false, 60);
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

    await page.selectOption('select[name="status"]', ['FAILED']);
    await page.click('#filters button[type="submit"]');
    await eventually('only the failed instance', async () => (await page.locator('#instances tbody tr').count()) === 1);
    expect(await page.locator('#instances tbody tr').getAttribute('data-instance-id')).to.equal('ui-failed');
    expect(page.url()).to.include('status=FAILED');
    await page.fill('input[name="instanceIDPrefix"]', 'nothing-like-this');
    await page.click('#filters button[type="submit"]');
    await page.getByText('No workflow instances match.').waitFor();
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
