import { expect } from 'chai';
import { pino } from 'pino';
import { parseResourceFile } from '../../src/components/disk-loader.js';
import { selectComponents } from '../../src/components/select.js';
import { parseComponentSpec, type ComponentSpec } from '../../src/components/spec.js';
import { isRuntimeError } from '../../src/errors/runtime-error.js';

const silent = pino({ level: 'silent' });

function doc(overrides: Record<string, unknown> = {}, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'svc.io/v1alpha1',
    kind: 'Component',
    metadata: { name: 'store' },
    spec: { type: 'state.redis', version: 'v1', ...spec },
    ...overrides,
  };
}

function expectInvalid(fn: () => unknown, message: RegExp): void {
  try {
    fn();
    expect.fail('accepted an invalid spec');
  } catch (err) {
    expect(isRuntimeError(err, 'ERR_COMPONENT_SPEC_INVALID'), String(err)).to.equal(true);
    expect((err as Error).message).to.match(message);
  }
}

describe('component specs', () => {
  it('parses a full spec, turning metadata values into strings', () => {
    const spec = parseComponentSpec(
      doc({ scopes: ['a', 'b'], metadata: { name: 'store', annotations: { 'svc.io/x': 'y' } } }, {
        initTimeout: '10s',
        ignoreErrors: true,
        metadata: [{ name: 'host', value: 'localhost:6379' }, { name: 'db', value: 3 }, { name: 'tls', value: false }],
      }),
      'a.yaml',
    );
    expect(spec).to.include({ name: 'store', type: 'state.redis', category: 'state', version: 'v1', ignoreErrors: true, initTimeoutMs: 10_000 });
    expect(spec.metadata).to.deep.equal({ host: 'localhost:6379', db: '3', tls: 'false' });
    expect(spec.scopes).to.deep.equal(['a', 'b']);
    expect(spec.annotations).to.deep.equal({ 'svc.io/x': 'y' });
  });

  it('names the source and the field in every validation error', () => {
    expectInvalid(() => parseComponentSpec(doc({}, { version: 'v2' }), 'f.yaml (document 2)'), /^f\.yaml \(document 2\): spec\.version must be 'v1'/);
    expectInvalid(() => parseComponentSpec(doc({}, { type: 'redis' }), 'f.yaml'), /f\.yaml: spec\.type must be '<api>\.<name>'/);
    expectInvalid(() => parseComponentSpec(doc({}, { type: 'cache.redis' }), 'f.yaml'), /spec\.type has unknown api 'cache'/);
    expectInvalid(() => parseComponentSpec(doc({ metadata: {} }), 'f.yaml'), /metadata\.name is required/);
    expectInvalid(() => parseComponentSpec(doc({ metadata: { name: 'a/b' } }), 'f.yaml'), /metadata\.name 'a\/b'/);
    expectInvalid(() => parseComponentSpec(doc({}, { metadata: [{ value: 'x' }] }), 'f.yaml'), /spec\.metadata\[0\]\.name is required/);
    expectInvalid(() => parseComponentSpec(doc({}, { initTimeout: 'soon' }), 'f.yaml'), /spec\.initTimeout/);
    expectInvalid(() => parseComponentSpec(doc({ scopes: 'app' }), 'f.yaml'), /scopes must be a list/);
  });

  it('reads multi-document files (Dapr Components too), skipping other kinds and empty documents', () => {
    const text = [
      'apiVersion: svc.io/v1alpha1\nkind: Component\nmetadata: {name: one}\nspec: {type: state.in-memory, version: v1}',
      'apiVersion: svc.io/v1alpha1\nkind: Subscription\nmetadata: {name: sub}',
      '',
      'apiVersion: dapr.io/v1alpha1\nkind: Component\nmetadata: {name: daprs}\nspec: {type: state.in-memory, version: v1}',
      'apiVersion: svc.io/v1alpha1\nkind: Component\nmetadata: {name: two}\nspec: {type: state.sqlite, version: v1}',
    ].join('\n---\n');
    const specs = parseResourceFile('/r/all.yaml', text, silent);
    expect(specs.map((s) => s.name)).to.deep.equal(['one', 'daprs', 'two']);
    expect(specs[2]!.source).to.equal('file /r/all.yaml (document 5)');
  });

  it('reports YAML syntax errors with the file name', () => {
    expectInvalid(() => parseResourceFile('/r/bad.yaml', 'a: [unclosed', silent), /^\/r\/bad\.yaml: invalid YAML/);
  });
});

describe('component selection', () => {
  const spec = (name: string, scopes: string[] = [], namespace?: string): ComponentSpec =>
    parseComponentSpec(doc({ metadata: { name, namespace }, scopes }), `${name}.yaml`);

  it('keeps unscoped and in-scope components, skips others', () => {
    const picked = selectComponents([spec('all'), spec('mine', ['app1']), spec('theirs', ['app2'])], { appId: 'app1', namespace: undefined, log: silent });
    expect(picked.map((s) => s.name)).to.deep.equal(['all', 'mine']);
  });

  it('fails on a duplicate name even when the duplicate is out of scope', () => {
    try {
      selectComponents([spec('dup'), spec('dup', ['other'])], { appId: 'app1', namespace: undefined, log: silent });
      expect.fail('accepted a duplicate');
    } catch (err) {
      expect(isRuntimeError(err, 'ERR_COMPONENT_DUPLICATE')).to.equal(true);
      expect((err as Error).message).to.match(/duplicate definition of component name dup .*dup\.yaml/);
    }
  });

  it('skips components of another namespace when a namespace is set', () => {
    const picked = selectComponents([spec('here', [], 'ns1'), spec('there', [], 'ns2'), spec('any')], { appId: 'a', namespace: 'ns1', log: silent });
    expect(picked.map((s) => s.name)).to.deep.equal(['here', 'any']);
  });
});
