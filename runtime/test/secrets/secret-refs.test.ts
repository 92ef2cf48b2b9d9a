import { expect } from 'chai';
import type { LoadedComponent } from '../../src/components/manager.js';
import { resolvedSecretValues, withoutSecrets } from '../../src/components/secret-redaction.js';
import { parseComponentSpec } from '../../src/components/spec.js';
import { RuntimeError } from '../../src/errors/runtime-error.js';
import { LocalEnvSecretStore } from '../../src/secrets/local-env.js';
import { secretRefResolver } from '../../src/secrets/secret-refs.js';
import { expectRuntimeError, expectRuntimeRejection } from '../support/expect-runtime-error.js';

const doc = (metadata: unknown[], auth?: unknown) => ({
  apiVersion: 'dapr.io/v1alpha1',
  kind: 'Component',
  metadata: { name: 'cache' },
  spec: { type: 'state.redis', version: 'v1', metadata },
  ...(auth === undefined ? {} : { auth }),
});

describe('secret references in Components', () => {
  const vault = new LocalEnvSecretStore('', { DB: 'hunter2', MULTI: 'm' });
  const components = {
    get: (name: string) => (name === 'vault' ? ({ spec: { name, category: 'secretstores' }, instance: vault } as unknown as LoadedComponent) : undefined),
  };

  it('parses secretKeyRef (key defaults to name) and auth.secretStore, keeping the value out of metadata', () => {
    const spec = parseComponentSpec(doc([{ name: 'redisHost', value: 'h:1' }, { name: 'redisPassword', secretKeyRef: { name: 'DB' } }], { secretStore: 'vault' }), 'f');
    expect(spec.metadata).to.deep.equal({ redisHost: 'h:1' });
    expect(spec.secretRefs).to.deep.equal({ redisPassword: { name: 'DB', key: 'DB' } });
    expect(spec.secretStore).to.equal('vault');
    expectRuntimeError(() => parseComponentSpec(doc([{ name: 'p', secretKeyRef: { key: 'k' } }]), 'f'), 'ERR_COMPONENT_SPEC_INVALID', /f: spec\.metadata\[0\]\.secretKeyRef\.name is required/);
    expectRuntimeError(() => parseComponentSpec(doc([], { secretStore: 3 }), 'f'), 'ERR_COMPONENT_SPEC_INVALID', /auth\.secretStore must be the name/);
  });

  it('fills the values in from the named store before the init', async () => {
    const spec = parseComponentSpec(doc([{ name: 'redisPassword', secretKeyRef: { name: 'DB', key: 'DB' } }], { secretStore: 'vault' }), 'f');
    const resolved = await secretRefResolver({ components })(spec);
    expect(resolved.metadata).to.deep.equal({ redisPassword: 'hunter2' });
    expect(resolved.secretRefs).to.deep.equal({});
  });

  it('fails naming the component, entry, store and secret, never a value', async () => {
    const resolve = secretRefResolver({ components });
    const spec = (ref: object, auth: object | undefined = { secretStore: 'vault' }) => parseComponentSpec(doc([{ name: 'redisPassword', secretKeyRef: ref }], auth), 'file /r/c.yaml');
    await expectRuntimeRejection(resolve(spec({ name: 'NOPE' })), 'ERR_COMPONENT_INIT', /^component 'cache' \(file \/r\/c\.yaml\): metadata redisPassword: cannot read secret NOPE from secret store vault: environment variable NOPE is not set$/);
    await expectRuntimeRejection(resolve(spec({ name: 'DB', key: 'other' })), 'ERR_COMPONENT_INIT', /metadata redisPassword: secret DB in secret store vault has no key other$/);
    await expectRuntimeRejection(resolve(spec({ name: 'DB' }, { secretStore: 'missing' })), 'ERR_COMPONENT_INIT', /auth\.secretStore missing is not a loaded secret store/);
    await expectRuntimeRejection(resolve(spec({ name: 'DB' }, {})), 'ERR_COMPONENT_SPEC_INVALID', /secretKeyRef needs auth\.secretStore/);
  });

  it('reads from the default source (kubernetes mode) when no auth.secretStore is named', async () => {
    const resolve = secretRefResolver({ components, byDefault: { label: 'Kubernetes Secret', read: (name: string) => Promise.resolve({ password: `${name}-value` }) } });
    const resolved = await resolve(parseComponentSpec(doc([{ name: 'redisPassword', secretKeyRef: { name: 'redis', key: 'password' } }]), 'f'));
    expect(resolved.metadata).to.deep.equal({ redisPassword: 'redis-value' });
  });
});

describe('secret values kept out of a failed init', () => {
  const spec = parseComponentSpec(doc([{ name: 'redisHost', secretKeyRef: { name: 'HOST' } }, { name: 'redisPassword', secretKeyRef: { name: 'PW' } }, { name: 'redisDB', value: '2' }], { secretStore: 'vault' }), 'f');
  const ready = { ...spec, metadata: { redisHost: 'cache.internal', redisPassword: 'cache.internal-pw', redisDB: '2' }, secretRefs: {} };

  it("finds the values the spec's references resolved to, not its plain entries", () => {
    expect(resolvedSecretValues(spec, ready).sort()).to.deep.equal(['cache.internal', 'cache.internal-pw']);
  });

  it('replaces each in the message (a value holding another whole), keeping the code and dropping the cause', () => {
    const cause = new Error('AUTH cache.internal-pw failed');
    const err = withoutSecrets(new RuntimeError('ERR_COMPONENT_SPEC_INVALID', 'at cache.internal:6379 with cache.internal-pw', { cause }), resolvedSecretValues(spec, ready));
    expect(err).to.be.instanceOf(RuntimeError);
    expect((err as RuntimeError).code).to.equal('ERR_COMPONENT_SPEC_INVALID');
    expect(err.message).to.equal('at [secret]:6379 with [secret]');
    expect(err.cause).to.equal(undefined);
    const plain = withoutSecrets(new Error('ECONNREFUSED cache.internal'), ['cache.internal']);
    expect([(plain as RuntimeError).code, plain.message]).to.deep.equal(['ERR_COMPONENT_INIT', 'ECONNREFUSED [secret]']);
  });

  it('leaves an error that quotes none as it is', () => {
    const err = new Error('connect ECONNREFUSED 127.0.0.1:6379');
    expect(withoutSecrets(err, ['cache.internal'])).to.equal(err);
  });
});
