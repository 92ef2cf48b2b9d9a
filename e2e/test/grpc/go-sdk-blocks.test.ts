/**
 * A real Go program on the Dapr Go SDK client (github.com/dapr/go-sdk/client v1.11.0) against svcd: e2e/go/runtime-client
 * run as `blocks <run>` reads secrets from a local file store (one denied by the Configuration's scope), gets and
 * subscribes to configuration.redis items (an update written to Redis while it runs reaches its handler, nothing
 * after UnsubscribeConfigurationItems), and contends for a lock.redis lock as two owners.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { componentYaml, deleteRedisKeysWithPrefix, SvcdProcess, TEST_REDIS_HOST, withTestRedis } from '@svc/runtime/test-support';
import { buildGoProgram, runGoProgram, stepObserved, type GoProgramRun } from '../support/go-program.js';
import { secretScopesConfiguration } from '../support/secret-scopes.js';

const SECRETS_FILE = JSON.stringify({ api: { key: 'go-api-key' }, db: { password: 'go-db-password' } });

describe('Dapr Go SDK client: secrets, configuration and lock against svcd (e2e/go/runtime-client blocks)', function () {
  this.timeout(60_000);
  const run = `go-blocks-${randomUUID()}`;
  const appId = `go-blocks-${randomUUID()}`;
  let svcd: SvcdProcess;
  let program: GoProgramRun;
  /** The values this test wrote to <run>-sub while the program ran. */
  let written = 0;

  before(async function () {
    this.timeout(300_000); // the first build downloads the SDK's modules
    const binary = await buildGoProgram('runtime-client');
    await withTestRedis((r) => r.set(`${run}-get`, 'blue||v1'));
    svcd = await SvcdProcess.start({
      appId,
      resources: {
        'secrets.json': SECRETS_FILE,
        'filestore.yaml': componentYaml('filestore', 'secretstores.local.file', { secretsFile: 'secrets.json' }),
        'configstore.yaml': componentYaml('configstore', 'configuration.redis', { redisHost: TEST_REDIS_HOST }),
        'lockstore.yaml': componentYaml('lockstore', 'lock.redis', { redisHost: TEST_REDIS_HOST }),
        'config.yaml': secretScopesConfiguration('appconfig', 'filestore', ['db:password']),
      },
      args: ['--config', 'appconfig'],
    });
    // The program subscribes at a moment of its own: the key changes every 150 ms for as long as it runs.
    let running = true;
    const writer = (async () => {
      while (running) {
        await withTestRedis((r) => r.set(`${run}-sub`, `updated||v${++written}`));
        await new Promise((r) => setTimeout(r, 150));
      }
    })();
    try {
      program = await runGoProgram(binary, { grpcPort: svcd.ports.grpc, args: ['blocks', run], killAfterMs: 60_000 });
    } finally {
      running = false;
      await writer;
    }
  });
  after(async () => {
    await svcd?.dispose();
    await withTestRedis((r) => r.del(`${run}-get`, `${run}-sub`));
    await deleteRedisKeysWithPrefix(`lock||${appId}||`);
  });

  const observed = (step: string) => stepObserved(program, step);

  it('GetSecret and GetBulkSecret on a local file store; a missing key, a denied secret and an unknown store refused', () => {
    const o = observed('secrets-file');
    expect(o.secret).to.deep.equal({ 'api:key': 'go-api-key' });
    expect(o.bulk).to.deep.equal({ 'api:key': { 'api:key': 'go-api-key' } });
    expect(o.missingKey).to.match(/^Internal: .*nope/);
    expect(o.denied).to.match(/^PermissionDenied: .*db:password/);
    expect(o.unknownStore).to.match(/^InvalidArgument: .*nostore/);
  });

  it('GetConfigurationItems answers the existing key with its value and version, nothing for a missing one', () => {
    const o = observed('configuration-get');
    expect(o.items).to.deep.equal({ [`${run}-get`]: { value: 'blue', version: 'v1' } });
    expect(o.unknownStore).to.match(/^InvalidArgument: .*nostore/);
  });

  it('SubscribeConfigurationItems delivers a change written to Redis; nothing arrives after UnsubscribeConfigurationItems', () => {
    const o = observed('configuration-subscribe');
    expect(o).to.deep.include({ idSet: true, first: `${run}-sub=updated`, afterUnsubscribe: 0 });
    // Answered OK with ok=false and Dapr's message, which the SDK turns into its error.
    expect(o.unknownID).to.equal('unsubscribe error message = failed to unsubscribe to configuration request no-such-id: subscription does not exist');
    expect(written, 'the key kept changing after the unsubscribe').to.be.greaterThan(10);
  });

  it('TryLockAlpha1 grants once and refuses a second owner; UnlockAlpha1 answers success, belongs to others, does not exist', () => {
    const { unknownStore, ...o } = observed('lock');
    expect(o).to.deep.equal({
      first: true,
      second: false,
      unlockByOther: 'LOCK_BELONGS_TO_OTHERS(2)',
      unlockByHolder: 'SUCCESS(0)',
      unlockAgain: 'LOCK_DOES_NOT_EXIST(1)',
      secondAfterUnlock: true,
    });
    expect(unknownStore).to.match(/^InvalidArgument: .*nostore/);
  });
});
