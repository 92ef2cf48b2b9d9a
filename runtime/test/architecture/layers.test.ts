import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { removeTempFolder, tempFolder } from '../support/temp-folders.js';

const run = promisify(execFile);
const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const CHECK = path.join(REPOSITORY, 'scripts', 'check-layers.mjs');
const SRC = path.join(REPOSITORY, 'runtime', 'src');

/** Runs the layer check over `src`; its exit code and what it printed. */
async function check(src: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(process.execPath, [CHECK, '--src', src]);
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, out: e.stdout };
  }
}

describe('the layers of runtime/src (scripts/check-layers.mjs, run by make lint)', function () {
  this.timeout(30_000);
  let copy: string;
  beforeEach(() => {
    copy = tempFolder('svc-layers-');
    cpSync(SRC, copy, { recursive: true });
  });
  afterEach(() => removeTempFolder(copy));

  it('holds on the sources as they are: no upward import, no circle, no file over 450 lines', async () => {
    const res = await check(SRC);
    expect(res.code, res.out).to.equal(0);
    expect(res.out).to.match(/ 0 upward, 0 circles, 0 files over 450 lines/);
  });

  it('fails on an upward import, a type-only one too, naming it', async () => {
    appendFileSync(path.join(copy, 'errors', 'codes.ts'), "\nimport type { WorkflowEngine } from '../workflow/engine.js';\nexport type Leak = WorkflowEngine;\n");
    const res = await check(copy);
    expect(res.code).to.equal(1);
    expect(res.out).to.include('errors/codes.ts → workflow/engine.ts (errors may not import workflow)');
  });

  it('fails on an import circle inside one folder', async () => {
    const history = path.join(copy, 'workflow', 'history.ts');
    writeFileSync(history, `import type { WorkflowEngine } from './engine.js';\nexport type Back = WorkflowEngine;\n${readFileSync(history, 'utf8')}`);
    const res = await check(copy);
    expect(res.code).to.equal(1);
    // engine.ts imports history.ts (directly and through the modules between them): one circle through both.
    expect(res.out).to.match(/import circles \(1\):\n {2}workflow\/engine\.ts ↔ (?:\S+ ↔ )*workflow\/history\.ts/);
  });

  it('fails on a file over 450 lines and on a folder no layer names', async () => {
    appendFileSync(path.join(copy, 'state', 'store-metrics.ts'), '// padding\n'.repeat(451));
    writeFileSync(path.join(copy, 'invocation.ts'), 'export const x = 1;\n');
    const res = await check(copy);
    expect(res.code).to.equal(1);
    expect(res.out).to.match(/^ {2}state\/store-metrics\.ts: 45\d lines$/m).and.include("folder 'invocation.ts' has no layer");
  });
});
