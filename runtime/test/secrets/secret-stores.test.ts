import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LoadedComponent } from '../../src/components/manager.js';
import { parseConfiguration } from '../../src/components/configuration-resource.js';
import type { SecretScope } from '../../src/components/secret-scopes-spec.js';
import type { ComponentSpec } from '../../src/components/spec.js';
import { LocalEnvSecretStore } from '../../src/secrets/local-env.js';
import { LocalFileSecretStore, localFileOptions } from '../../src/secrets/local-file.js';
import { isSecretAllowed } from '../../src/secrets/scopes.js';
import { SecretsApi } from '../../src/secrets/secrets-api.js';
import { expectRuntimeError, expectRuntimeRejection } from '../support/expect-runtime-error.js';
import { removeTempFolder, tempFolder } from '../support/temp-folders.js';

const NESTED = { db: { password: 'p4ss', port: 5432 }, token: 't0k', list: ['a', 'b'] };

describe('secret stores', () => {
  let dir: string;
  before(() => {
    dir = tempFolder('secrets-');
    writeFileSync(path.join(dir, 'secrets.json'), JSON.stringify(NESTED));
    writeFileSync(path.join(dir, 'broken.json'), '{"db": "p4ss",');
  });
  after(() => removeTempFolder(dir));

  const open = (meta: Record<string, string>, paths = [dir]) => LocalFileSecretStore.open(localFileOptions((n) => meta[n]), paths);

  describe('secretstores.local.file', () => {
    it('flattens nested keys with the separator (":" by default), each its own single-valued secret', async () => {
      const store = open({ secretsFile: 'secrets.json' });
      expect(await store.getSecret('db:password')).to.deep.equal({ 'db:password': 'p4ss' });
      expect(await store.getSecret('db:port')).to.deep.equal({ 'db:port': '5432' });
      expect(await store.getSecret('list:1')).to.deep.equal({ 'list:1': 'b' });
      expect(Object.keys(await store.bulkGetSecret())).to.have.members(['db:password', 'db:port', 'token', 'list:0', 'list:1']);
    });

    it('takes nestedSeparator, an absolute secretsFile, and the first resources path holding a relative one', async () => {
      const store = open({ secretsFile: path.join(dir, 'secrets.json'), nestedSeparator: '.' }, []);
      expect(await store.getSecret('db.password')).to.deep.equal({ 'db.password': 'p4ss' });
      const second = open({ secretsFile: 'secrets.json' }, ['/nonexistent', dir]);
      expect(await second.getSecret('token')).to.deep.equal({ token: 't0k' });
    });

    it('multiValued: each top-level key is one secret holding the values below it', async () => {
      const store = open({ secretsFile: 'secrets.json', multiValued: 'true' });
      expect(await store.getSecret('db')).to.deep.equal({ password: 'p4ss', port: '5432' });
      expect(await store.getSecret('token')).to.deep.equal({ token: 't0k' });
      expect((await store.bulkGetSecret()).db).to.deep.equal({ password: 'p4ss', port: '5432' });
    });

    it('rejects a missing key, a path-like key and a prototype name alike, naming only the key', async () => {
      const store = open({ secretsFile: 'secrets.json' });
      for (const key of ['nope', '../secrets.json', '../../etc/passwd', '/etc/passwd', '__proto__', 'constructor', 'db']) {
        const err = await store.getSecret(key).then(() => undefined, (e: Error) => e);
        expect(err?.message, key).to.equal(`secret ${key} not found`);
      }
    });

    it('fails the init on a missing or broken file without quoting its content', () => {
      expectRuntimeError(() => open({}), 'ERR_COMPONENT_SPEC_INVALID', /secretsFile is required/);
      expectRuntimeError(() => open({ secretsFile: 'absent.json' }), 'ERR_COMPONENT_INIT', /cannot read secrets file .*absent\.json: ENOENT/);
      try {
        open({ secretsFile: 'broken.json' });
        expect.fail('expected a failure');
      } catch (err) {
        expect((err as Error).message).to.match(/broken\.json: not valid JSON$/);
        expect((err as Error).message).not.to.include('p4ss');
      }
      expectRuntimeError(() => open({ secretsFile: 'secrets.json', multiValued: 'yes' }), 'ERR_COMPONENT_SPEC_INVALID', /multiValued must be true or false/);
    });
  });

  describe('secretstores.local.env', () => {
    const env = { APP_DB: 'envpass', APP_TOKEN: 't', OTHER: 'o', SVC_API_TOKEN: 'sidecar', APP_SVC_X: 'fine' };

    it('reads <prefix><key>, lists only prefixed variables with the prefix removed', async () => {
      const store = new LocalEnvSecretStore('APP_', env);
      expect(await store.getSecret('DB')).to.deep.equal({ DB: 'envpass' });
      expect(await store.bulkGetSecret()).to.deep.equal({ DB: { DB: 'envpass' }, TOKEN: { TOKEN: 't' }, SVC_X: { SVC_X: 'fine' } });
      await store.getSecret('OTHER').then(() => expect.fail('expected a rejection'), (e: Error) => expect(e.message).to.equal('environment variable APP_OTHER is not set'));
    });

    it("never serves svcd's own settings (SVC_*, DAPR_*)", async () => {
      const store = new LocalEnvSecretStore('', env);
      await store.getSecret('SVC_API_TOKEN').then(() => expect.fail('expected a rejection'), () => undefined);
      expect(Object.keys(await store.bulkGetSecret())).to.have.members(['APP_DB', 'APP_TOKEN', 'OTHER', 'APP_SVC_X']);
    });
  });
});

describe('secret scopes', () => {
  const scope = (s: Partial<SecretScope>): SecretScope[] => [{ storeName: 'vault', defaultAccess: 'allow', allowedSecrets: [], deniedSecrets: [], ...s }];

  it('applies the reference rules: no scope allows; allowedSecrets decides alone; denied, then defaultAccess', () => {
    expect(isSecretAllowed([], 'vault', 'x')).to.equal(true);
    expect(isSecretAllowed(scope({ defaultAccess: 'deny' }), 'other', 'x')).to.equal(true);
    expect(isSecretAllowed(scope({ defaultAccess: 'deny' }), 'vault', 'x')).to.equal(false);
    expect(isSecretAllowed(scope({ defaultAccess: 'deny', allowedSecrets: ['a'] }), 'vault', 'a')).to.equal(true);
    expect(isSecretAllowed(scope({ allowedSecrets: ['a'], deniedSecrets: ['b'] }), 'vault', 'c')).to.equal(false);
    expect(isSecretAllowed(scope({ deniedSecrets: ['b'] }), 'vault', 'b')).to.equal(false);
    expect(isSecretAllowed(scope({ deniedSecrets: ['b'] }), 'vault', 'c')).to.equal(true);
  });

  it('is parsed from a Configuration, defaultAccess without case, and refuses bad shapes', () => {
    const doc = (secrets: unknown) => ({ apiVersion: 'dapr.io/v1alpha1', kind: 'Configuration', metadata: { name: 'c' }, spec: { secrets } });
    const parsed = parseConfiguration(doc({ scopes: [{ storeName: 'vault', defaultAccess: 'Deny', allowedSecrets: ['a'] }] }), 'f');
    expect(parsed.secretScopes).to.deep.equal([{ storeName: 'vault', defaultAccess: 'deny', allowedSecrets: ['a'], deniedSecrets: [] }]);
    expectRuntimeError(() => parseConfiguration(doc({ scopes: [{ defaultAccess: 'allow' }] }), 'f'), 'ERR_CONFIGURATION_INVALID', /f: spec\.secrets\.scopes\[0\]\.storeName is required/);
    expectRuntimeError(() => parseConfiguration(doc({ scopes: [{ storeName: 'v', defaultAccess: 'maybe' }] }), 'f'), 'ERR_CONFIGURATION_INVALID', /defaultAccess must be allow or deny/);
    expectRuntimeError(() => parseConfiguration(doc({ scopes: [{ storeName: 'v', deniedSecrets: 'a' }] }), 'f'), 'ERR_CONFIGURATION_INVALID', /deniedSecrets must be a list/);
    expectRuntimeError(() => parseConfiguration(doc({ scopes: [{ storeName: 'v' }, { storeName: 'v' }] }), 'f'), 'ERR_CONFIGURATION_INVALID', /names store v twice/);
  });
});

describe('SecretsApi', () => {
  const loaded = (name: string, category: ComponentSpec['category'], instance: object): LoadedComponent =>
    ({ spec: { name, category } as ComponentSpec, origin: 'built-in', instance }) as LoadedComponent;
  const env = new LocalEnvSecretStore('', { A: '1', B: '2' });
  const broken = { getSecret: () => Promise.reject(new Error('backend down')), bulkGetSecret: () => Promise.reject(new Error('backend down')), close: () => Promise.resolve() };
  const all = [loaded('env', 'secretstores', env), loaded('broken', 'secretstores', broken), loaded('statestore', 'state', { close: () => Promise.resolve() })];
  const manager = (list: LoadedComponent[]) => ({ get: (n: string) => list.find((c) => c.spec.name === n), list: (cat?: string) => list.filter((c) => !cat || c.spec.category === cat) });
  const scopes: SecretScope[] = [{ storeName: 'env', defaultAccess: 'allow', allowedSecrets: [], deniedSecrets: ['B'] }];
  const api = new SecretsApi(manager(all), () => scopes);

  it('gets and bulk-gets, leaving out of bulk what the scope denies', async () => {
    expect(await api.get('env', 'A')).to.deep.equal({ A: '1' });
    expect(await api.bulk('env')).to.deep.equal({ A: { A: '1' } });
  });

  it('answers with the reference codes', async () => {
    await expectRuntimeRejection(new SecretsApi(manager([all[2]!]), () => []).get('env', 'A'), 'ERR_SECRET_STORES_NOT_CONFIGURED', /secret store is not configured/);
    await expectRuntimeRejection(api.get('nope', 'A'), 'ERR_SECRET_STORE_NOT_FOUND', /failed finding secret store with key nope \(configured: env, broken\)/);
    await expectRuntimeRejection(api.get('statestore', 'A'), 'ERR_SECRET_STORE_NOT_FOUND', /statestore/);
    await expectRuntimeRejection(api.get('env', 'B'), 'ERR_PERMISSION_DENIED', /access denied by policy to get "B" from "env"/);
    await expectRuntimeRejection(api.get('env', 'C'), 'ERR_SECRET_GET', /failed getting secret with key C from secret store env: environment variable C is not set/);
    await expectRuntimeRejection(api.get('env', ''), 'ERR_MALFORMED_REQUEST', /key is required/);
    await expectRuntimeRejection(api.bulk('broken'), 'ERR_SECRET_GET', /failed getting secrets from secret store broken: backend down/);
  });
});
