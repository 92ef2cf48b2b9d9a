import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { compileSvcdBundle, SVCD_CODE_CACHE_FILE } from '../../src/launcher/svcd-bundle.cjs';
import { componentYaml, SvcdProcess, tracingConfiguration } from '../support/index.js';

/** What V8 makes of the build's code cache in a Node started with `flags`. */
function codeCacheUseWith(flags: string[]): string {
  const launcher = new URL('../../src/launcher/svcd-bundle.cjs', import.meta.url).href;
  return execFileSync(process.execPath, [...flags, '--input-type=module', '-e', `import { compileSvcdBundle } from '${launcher}'; process.stdout.write(compileSvcdBundle().codeCache);`], { encoding: 'utf8' });
}

describe("svcd's bundle and its code cache", function () {
  this.timeout(60_000);

  it('compiles with the code cache the build made, which this Node accepts', () => {
    expect(compileSvcdBundle().codeCache, SVCD_CODE_CACHE_FILE).to.equal('accepted');
    expect(compileSvcdBundle(false).codeCache).to.equal('none');
  });

  it('starts and serves with a cache V8 refuses (a Node with other heap flags compiles the bundle as usual)', async () => {
    const flags = ['--max-old-space-size=300'];
    expect(codeCacheUseWith(flags)).to.equal('rejected');
    const svcd = await SvcdProcess.start({ env: { NODE_OPTIONS: flags.join(' ') }, resources: { 'store.yaml': componentYaml('store', 'state.in-memory') } });
    try {
      expect((await svcd.request('POST', '/v1.0/state/store', [{ key: 'k', value: 'v' }])).status).to.equal(204);
      expect(await (await svcd.request('GET', '/v1.0/state/store/k')).json()).to.equal('v');
    } finally {
      await svcd.dispose();
    }
  });

  it('loads the tracing SDK, a part of the bundle run on demand, when a Configuration turns tracing on', async () => {
    const resources = { 'store.yaml': componentYaml('store', 'state.in-memory'), 'config.yaml': tracingConfiguration({ samplingRate: 0 }) };
    const svcd = await SvcdProcess.start({ resources });
    try {
      expect(svcd.output).to.include('tracing on');
      expect((await svcd.request('POST', '/v1.0/state/store', [{ key: 'k', value: 'v' }])).status).to.equal(204);
    } finally {
      await svcd.dispose();
    }
  });
});
