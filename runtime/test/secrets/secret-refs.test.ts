import { expect } from 'chai';
import type { LoadedComponent } from '../../src/components/manager.js';
import { parseComponentSpec } from '../../src/components/spec.js';
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
