import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { readComponentSpecs } from '../../src/components/disk-loader.js';
import { loadStandaloneConfiguration } from '../../src/components/configuration-loader.js';
import { parseConfiguration } from '../../src/components/configuration-resource.js';
import { ApiException } from '../../src/components/kubernetes-client.js';
import { loadKubernetesConfiguration } from '../../src/components/kubernetes-configuration.js';
import type { SvcObjectGetter } from '../../src/components/kubernetes-loader.js';
import { RuntimeError } from '../../src/errors/runtime-error.js';
import { expectRuntimeError, expectRuntimeRejection } from '../support/expect-runtime-error.js';
import { removeTempFolder, tempFolder } from '../support/temp-folders.js';

/** A logger whose lines the test reads. */
function recordingLogger(): { log: Logger; lines: Array<{ msg: string; [k: string]: unknown }> } {
  const lines: Array<{ msg: string }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { msg: string });
      done();
    },
  });
  return { log: pino({ level: 'debug' }, sink), lines };
}
const silent = pino({ level: 'silent' });

function configuration(spec: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'svc.io/v1alpha1', kind: 'Configuration', metadata: { name: 'appconfig' }, spec, ...extra };
}

const configurationYaml = (name: string, defaultAction = 'deny'): string =>
  `apiVersion: svc.io/v1alpha1\nkind: Configuration\nmetadata:\n  name: ${name}\nspec:\n  accessControl:\n    defaultAction: ${defaultAction}\n`;
const componentYaml = 'apiVersion: svc.io/v1alpha1\nkind: Component\nmetadata:\n  name: store\nspec:\n  type: state.in-memory\n  version: v1\n';

describe('Configuration resource', () => {
  describe('parsing', () => {
    it('keeps the access control, name resolution and tracing of a full document, with defaults filled in', () => {
      const config = parseConfiguration(
        configuration({
          accessControl: {
            defaultAction: 'Deny',
            policies: [
              { appId: 'checkout', defaultAction: 'allow', trustDomain: 'shop', namespace: 'prod', operations: [{ name: 'orders/*', httpVerb: ['post', 'PUT'], action: 'DENY' }] },
              { appId: 'cart', operations: [{ name: '/items/**', action: 'allow' }] },
            ],
          },
          nameResolution: { component: 'kubernetes', configuration: { clusterDomain: 'cluster.local', ports: [1, 2] } },
          tracing: { samplingRate: '1', otel: { endpointAddress: 'localhost:4317' } },
          metrics: { enabled: true },
        }),
        'file /r/config.yaml',
      );
      expect(config).to.deep.equal({
        name: 'appconfig',
        source: 'file /r/config.yaml',
        accessControl: {
          defaultAction: 'deny',
          trustDomain: 'public',
          policies: [
            { appId: 'checkout', defaultAction: 'allow', trustDomain: 'shop', namespace: 'prod', operations: [{ name: '/orders/*', httpVerb: ['POST', 'PUT'], action: 'deny' }] },
            { appId: 'cart', defaultAction: undefined, trustDomain: 'public', namespace: 'default', operations: [{ name: '/items/**', httpVerb: ['*'], action: 'allow' }] },
          ],
        },
        nameResolution: { component: 'kubernetes', configuration: { clusterDomain: 'cluster.local', ports: [1, 2] } },
        tracing: { samplingRate: '1', otel: { endpointAddress: 'localhost:4317' } },
        secretScopes: [],
      });
    });

    it('defaults the global action to allow, and reads dapr.io documents and documents without a spec', () => {
      expect(parseConfiguration(configuration({ accessControl: {} }), 's').accessControl).to.deep.equal({ defaultAction: 'deny', trustDomain: 'public', policies: [] });
      const dapr = parseConfiguration({ apiVersion: 'dapr.io/v1alpha1', kind: 'Configuration', metadata: { name: 'daprconfig' } }, 's');
      expect(dapr).to.deep.equal({ name: 'daprconfig', source: 's', accessControl: undefined, nameResolution: undefined, tracing: undefined, secretScopes: [] });
      expect(parseConfiguration(configuration({ nameResolution: { component: 'mdns' } }), 's').nameResolution).to.deep.equal({ component: 'mdns', configuration: {} });
    });

    it('names the source and the field of every problem', () => {
      const policy = (p: Record<string, unknown>) => configuration({ accessControl: { policies: [{ appId: 'a', ...p }] } });
      const op = (o: Record<string, unknown>) => policy({ operations: [{ name: '/x', action: 'allow', ...o }] });
      const cases: [unknown, RegExp][] = [
        [{ ...configuration({}), kind: 'Component' }, /^src: document must be kind: Configuration/],
        [{ ...configuration({}), apiVersion: 'svc.io/v2' }, /^src: document must be kind: Configuration with apiVersion svc\.io\/v1alpha1 or dapr\.io\/v1alpha1$/],
        [configuration({}, { metadata: {} }), /^src: metadata\.name is required$/],
        [configuration('nope'), /^src: spec must be a map$/],
        [configuration({ accessControl: ['deny'] }), /^src: spec\.accessControl must be a map/],
        [configuration({ accessControl: { defaultAction: 'block' } }), /^src: spec\.accessControl\.defaultAction must be allow or deny, got "block"$/],
        [configuration({ accessControl: { trustDomain: 7 } }), /^src: spec\.accessControl\.trustDomain must be a string, got 7$/],
        [configuration({ accessControl: { policies: { appId: 'a' } } }), /^src: spec\.accessControl\.policies must be a list$/],
        [configuration({ accessControl: { policies: ['a'] } }), /^src: spec\.accessControl\.policies\[0\] must be a map/],
        [configuration({ accessControl: { policies: [{ defaultAction: 'allow' }] } }), /^src: spec\.accessControl\.policies\[0\]\.appId is required/],
        [policy({ appId: '' }), /^src: spec\.accessControl\.policies\[0\]\.appId is required/],
        [policy({ defaultAction: 'permit' }), /^src: spec\.accessControl\.policies\[0\]\.defaultAction must be allow or deny, got "permit"$/],
        [policy({ namespace: ['ns'] }), /^src: spec\.accessControl\.policies\[0\]\.namespace must be a string/],
        [policy({ trustDomain: true }), /^src: spec\.accessControl\.policies\[0\]\.trustDomain must be a string/],
        [policy({ operations: '/x' }), /^src: spec\.accessControl\.policies\[0\]\.operations must be a list$/],
        [policy({ operations: ['/x'] }), /^src: spec\.accessControl\.policies\[0\]\.operations\[0\] must be a map/],
        [op({ name: undefined }), /^src: spec\.accessControl\.policies\[0\]\.operations\[0\]\.name is required/],
        [op({ name: ' ' }), /^src: spec\.accessControl\.policies\[0\]\.operations\[0\]\.name is required/],
        [op({ action: undefined }), /^src: spec\.accessControl\.policies\[0\]\.operations\[0\]\.action must be allow or deny, got undefined$/],
        [op({ action: 'yes' }), /^src: spec\.accessControl\.policies\[0\]\.operations\[0\]\.action must be allow or deny, got "yes"$/],
        [op({ httpVerb: 'GET' }), /^src: spec\.accessControl\.policies\[0\]\.operations\[0\]\.httpVerb must be a list$/],
        [op({ httpVerb: [] }), /^src: spec\.accessControl\.policies\[0\]\.operations\[0\]\.httpVerb must name at least one HTTP method, or '\*'$/],
        [op({ httpVerb: ['GET', 'FETCH'] }), /^src: spec\.accessControl\.policies\[0\]\.operations\[0\]\.httpVerb\[1\] must be an HTTP method \(GET, .*\) or '\*', got "FETCH"$/],
        [op({ httpVerb: [1] }), /httpVerb\[0\] must be an HTTP method/],
        [
          configuration({ accessControl: { policies: [{ appId: 'a' }, { appId: 'b' }, { appId: 'a', namespace: 'default', trustDomain: 'public' }] } }),
          /^src: spec\.accessControl\.policies\[2\] repeats the policy of policies\[0\] \(appId 'a', namespace 'default', trustDomain 'public'\)$/,
        ],
        [configuration({ nameResolution: { configuration: {} } }), /^src: spec\.nameResolution\.component is required/],
        [configuration({ nameResolution: 'kubernetes' }), /^src: spec\.nameResolution must be a map$/],
        [configuration({ nameResolution: { component: 'mdns', configuration: [] } }), /^src: spec\.nameResolution\.configuration must be a map$/],
        [configuration({ tracing: 'on' }), /^src: spec\.tracing must be a map$/],
      ];
      for (const [doc, message] of cases) expectRuntimeError(() => parseConfiguration(doc, 'src'), 'ERR_CONFIGURATION_INVALID', message);
    });

    it('lets the same app id have a policy per namespace and per trust domain', () => {
      const policies = [{ appId: 'a', namespace: 'ns1' }, { appId: 'a', namespace: 'ns2' }, { appId: 'a', namespace: 'ns1', trustDomain: 'other' }];
      expect(parseConfiguration(configuration({ accessControl: { policies } }), 's').accessControl?.policies).to.have.length(3);
    });
  });

  describe('standalone loading', () => {
    let dir: string;
    let folders = 0;
    beforeEach(() => {
      dir = tempFolder('svc-config-');
    });
    afterEach(() => removeTempFolder(dir));

    /** A resources path (inside this test's folder) holding these files. */
    function resourcesWith(files: Record<string, string>): string[] {
      const folder = path.join(dir, `resources-${++folders}`);
      mkdirSync(folder);
      for (const [name, text] of Object.entries(files)) writeFileSync(path.join(folder, name), text);
      return [folder];
    }

    it('reads a file given by path, whatever the resources paths hold', async () => {
      const file = path.join(dir, 'config.yaml');
      writeFileSync(file, `${componentYaml}---\n${configurationYaml('from-file')}`);
      const paths = resourcesWith({ 'other.yaml': configurationYaml('in-resources') });
      const config = await loadStandaloneConfiguration(file, paths, silent);
      expect(config?.name).to.equal('from-file');
      expect(config?.source).to.equal(`file ${file} (document 2)`);
      expect(config?.accessControl?.defaultAction).to.equal('deny');
    });

    it('reads a relative path too (a name with a YAML extension is a file)', async () => {
      writeFileSync(path.join(dir, 'app.yml'), configurationYaml('relative'));
      const cwd = process.cwd();
      process.chdir(dir);
      try {
        expect((await loadStandaloneConfiguration('app.yml', [], silent))?.name).to.equal('relative');
      } finally {
        process.chdir(cwd);
      }
    });

    it('finds a Configuration by name among several in the resources paths', async () => {
      const paths = resourcesWith({ 'a.yaml': `${configurationYaml('one')}---\n${configurationYaml('two', 'allow')}`, 'b.yaml': componentYaml });
      const { log, lines } = recordingLogger();
      const config = await loadStandaloneConfiguration('two', paths, log);
      expect(config?.accessControl?.defaultAction).to.equal('allow');
      expect(lines.find((l) => l.msg === 'configuration loaded')).to.include({ configuration: 'two', source: `file ${path.join(paths[0]!, 'a.yaml')} (document 2)` });
    });

    it('without a selector: the only Configuration, none when there is none, an error when there are several', async () => {
      expect((await loadStandaloneConfiguration(undefined, resourcesWith({ 'c.yaml': configurationYaml('only'), 's.yaml': componentYaml }), silent))?.name).to.equal('only');
      expect(await loadStandaloneConfiguration(undefined, resourcesWith({ 's.yaml': componentYaml }), silent)).to.equal(undefined);
      expect(await loadStandaloneConfiguration(undefined, [], silent)).to.equal(undefined);
      const paths = resourcesWith({ 'a.yaml': configurationYaml('one'), 'b.yaml': configurationYaml('two') });
      await expectRuntimeRejection(loadStandaloneConfiguration(undefined, paths, silent), 'ERR_CONFIGURATION_INVALID', /^the resources paths hold several Configurations \(file .*a\.yaml, file .*b\.yaml\): choose one with --config <name or file>$/);
    });

    it('refuses a name it cannot find, or finds twice', async () => {
      const paths = resourcesWith({ 'a.yaml': configurationYaml('one'), 'b.yaml': configurationYaml('one') + '---\n' + configurationYaml('two') });
      await expectRuntimeRejection(loadStandaloneConfiguration('three', paths, silent), 'ERR_CONFIGURATION_INVALID', /^no Configuration named 'three' \(--config\) in the resources paths \(.*\); the Configurations there: one, one, two$/);
      await expectRuntimeRejection(loadStandaloneConfiguration('one', paths, silent), 'ERR_CONFIGURATION_INVALID', /^several Configurations are named 'one' \(file .*a\.yaml, file .*b\.yaml \(document 1\)\): keep one$/);
      await expectRuntimeRejection(loadStandaloneConfiguration('three', [], silent), 'ERR_CONFIGURATION_INVALID', /in the resources paths \(none given\); there are none$/);
    });

    it('refuses a file it cannot read, that is not YAML, or that holds no Configuration or several', async () => {
      const file = (name: string, text: string) => {
        writeFileSync(path.join(dir, name), text);
        return path.join(dir, name);
      };
      await expectRuntimeRejection(loadStandaloneConfiguration(path.join(dir, 'missing.yaml'), [], silent), 'ERR_CONFIGURATION_INVALID', /^cannot read the Configuration file .*missing\.yaml \(--config\): ENOENT/);
      await expectRuntimeRejection(loadStandaloneConfiguration(file('bad.yaml', 'a: [unclosed'), [], silent), 'ERR_CONFIGURATION_INVALID', /bad\.yaml: invalid YAML/);
      await expectRuntimeRejection(loadStandaloneConfiguration(file('component.yaml', componentYaml), [], silent), 'ERR_CONFIGURATION_INVALID', /component\.yaml \(--config\) holds no Configuration document/);
      await expectRuntimeRejection(loadStandaloneConfiguration(file('two.yaml', `${configurationYaml('a')}---\n${configurationYaml('b')}`), [], silent), 'ERR_CONFIGURATION_INVALID', /two\.yaml \(--config\) holds several Configuration documents \(.*\(document 1\), .*\(document 2\)\): keep one$/);
      await expectRuntimeRejection(loadStandaloneConfiguration(file('invalid.yaml', configurationYaml('a', 'maybe')), [], silent), 'ERR_CONFIGURATION_INVALID', /invalid\.yaml: spec\.accessControl\.defaultAction must be allow or deny/);
    });

    it('parses only the Configuration it chose', async () => {
      const paths = resourcesWith({ 'a.yaml': configurationYaml('good'), 'b.yaml': configurationYaml('broken', 'maybe') });
      expect((await loadStandaloneConfiguration('good', paths, silent))?.name).to.equal('good');
      await expectRuntimeRejection(loadStandaloneConfiguration('broken', paths, silent), 'ERR_CONFIGURATION_INVALID', /b\.yaml: spec\.accessControl\.defaultAction/);
    });

    it('the Component loader reads past Configuration documents without reporting them as skipped', async () => {
      const paths = resourcesWith({ 'all.yaml': `${componentYaml}---\n${configurationYaml('c')}---\napiVersion: dapr.io/v1alpha1\nkind: Configuration\nmetadata:\n  name: d\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\n` });
      const { log, lines } = recordingLogger();
      expect((await readComponentSpecs(paths, log)).map((s) => s.name)).to.deep.equal(['store']);
      const skipped = lines.filter((l) => l.msg.startsWith('skipping a document'));
      expect(skipped.map((l) => l.kind)).to.deep.equal(['ConfigMap']);
    });
  });

  describe('kubernetes loading', () => {
    const getter = (answer: (namespace: string, name: string) => unknown): SvcObjectGetter & { asked: string[] } => {
      const asked: string[] = [];
      return {
        asked,
        get: (namespace, name) => {
          asked.push(`${namespace}/${name}`);
          return Promise.resolve().then(() => answer(namespace, name));
        },
      };
    };

    it('reads the named Configuration of the namespace', async () => {
      const api = getter((namespace, name) => ({ metadata: { name, namespace }, spec: { accessControl: { defaultAction: 'deny' } } }));
      const config = await loadKubernetesConfiguration('appconfig', 'shop', api, silent);
      expect(api.asked).to.deep.equal(['shop/appconfig']);
      expect(config).to.include({ name: 'appconfig', source: 'kubernetes: shop/appconfig' });
      expect(config.accessControl?.defaultAction).to.equal('deny');
    });

    it('says which Configuration is missing, and passes other API failures on', async () => {
      const notFound = getter(() => {
        throw new ApiException(404, 'Not Found', '{"reason":"NotFound"}', {});
      });
      await expectRuntimeRejection(loadKubernetesConfiguration('appconfig', 'shop', notFound, silent), 'ERR_CONFIGURATION_INVALID', /^no Configuration 'appconfig' in namespace shop \(the svc\.io\/config annotation names it/);
      const forbidden = getter(() => {
        throw new RuntimeError('ERR_KUBERNETES_API', 'cannot get configurations.svc.io appconfig in namespace shop: 403 Forbidden: forbidden');
      });
      await expectRuntimeRejection(loadKubernetesConfiguration('appconfig', 'shop', forbidden, silent), 'ERR_KUBERNETES_API', /forbidden/);
    });

    it('needs the namespace, and validates the object like a file', async () => {
      await expectRuntimeRejection(loadKubernetesConfiguration('appconfig', undefined, getter(() => ({})), silent), 'ERR_CONFIG_INVALID', /--mode kubernetes needs --namespace/);
      const bad = getter((_ns, name) => ({ metadata: { name }, spec: { accessControl: { policies: [{ namespace: 'x' }] } } }));
      await expectRuntimeRejection(loadKubernetesConfiguration('appconfig', 'shop', bad, silent), 'ERR_CONFIGURATION_INVALID', /^kubernetes: shop\/appconfig: spec\.accessControl\.policies\[0\]\.appId is required/);
    });
  });
});
