/**
 * svc in a real single-node Kubernetes cluster built on this machine from upstream binaries: `e2e/cluster/run.sh`
 * brings the node up, builds the images from docker/Dockerfile, installs the chart and the example, runs every
 * check of e2e/cluster/checks.sh and removes the cluster. Each check is one test here, named as the script names
 * it, so a failure shows that check's own output. Where this machine cannot run a node (not root, no namespaces or
 * cgroups) the suite says why in one line and the rest of `make test` runs.
 */
import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const CLUSTER = path.join(REPO, 'e2e/cluster');
const RUN_TIMEOUT_MS = 45 * 60 * 1000;

/** The names of the checks run.sh runs, in order, as checks.sh declares them (`check "name" function`). */
function declaredChecks(): string[] {
  const source = readFileSync(path.join(CLUSTER, 'checks.sh'), 'utf8');
  return [...source.matchAll(/^\s+check "([^"]+)" check_\w+$/gm)].map((m) => m[1] ?? '');
}

function unsupportedReason(): string {
  const res = spawnSync('bash', ['-c', `source ${JSON.stringify(path.join(CLUSTER, 'env.sh'))} && cluster_unsupported`], { encoding: 'utf8' });
  return res.status === 0 ? res.stdout.trim() : `cannot read e2e/cluster/env.sh: ${res.stderr.trim()}`;
}

interface CheckResult {
  passed: boolean;
  line: string;
  detail: string[];
}

/** The PASS/FAIL line of each named check in run.sh's output, with the indented output that follows a failure. */
function parseChecks(output: string, names: string[]): Map<string, CheckResult> {
  const results = new Map<string, CheckResult>();
  let last: CheckResult | undefined;
  for (const line of output.split('\n')) {
    const name = names.find((n) => line.startsWith(`PASS ${n} `) || line.startsWith(`FAIL ${n} `));
    if (name) {
      last = { passed: line.startsWith('PASS'), line, detail: [] };
      results.set(name, last);
    } else if (last && line.startsWith('     | ')) {
      last.detail.push(line.slice(7));
    } else {
      last = undefined;
    }
  }
  return results;
}

describe('svc in a local Kubernetes cluster (e2e/cluster/run.sh)', function () {
  this.timeout(RUN_TIMEOUT_MS);
  const checks = declaredChecks();
  let output = '';
  let exitCode: number | null = null;
  let results = new Map<string, CheckResult>();

  before(async function () {
    const why = unsupportedReason();
    if (why) {
      console.log(`      local cluster suite not run: this machine cannot run a Kubernetes node (${why})`);
      this.skip();
    }
    const logPath = path.join(os.tmpdir(), `svc-cluster-run-${process.pid}.log`);
    const log = createWriteStream(logPath);
    console.log(`      e2e/cluster/run.sh (its whole output: ${logPath})`);
    exitCode = await new Promise<number | null>((resolve, reject) => {
      const child = spawn('bash', [path.join(CLUSTER, 'run.sh')], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
      const timer = setTimeout(() => child.kill('SIGTERM'), RUN_TIMEOUT_MS - 60_000);
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        log.write(chunk);
        // Each check's line as it comes: the run takes minutes.
        for (const line of chunk.toString().split('\n')) if (/^(PASS|FAIL) /.test(line)) console.log(`      ${line}`);
      });
      child.stderr.on('data', (chunk: Buffer) => log.write(chunk));
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        log.end();
        resolve(code);
      });
    });
    results = parseChecks(output, checks);
  });

  for (const name of checks) {
    it(name, function () {
      const result = results.get(name);
      if (!result) throw new Error(`run.sh printed no line for this check (exit ${String(exitCode)}); last output:\n${output.split('\n').slice(-30).join('\n')}`);
      if (!result.passed) throw new Error(`${result.line}\n${result.detail.join('\n')}`);
    });
  }

  it('ends with every check passed and removes the cluster', function () {
    expect(output).to.match(new RegExp(`^${checks.length} passed, 0 failed$`, 'm'));
    expect(exitCode).to.equal(0);
    expect(existsSync(process.env.SVC_CLUSTER_DIR ?? '/var/lib/svc-cluster'), 'cluster data left behind (e2e/cluster/env.sh)').to.equal(false);
  });
});
