/** Where the chart is and which helm binary renders it (scripts/ensure-tools.sh installs helm with go install). */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/test/support → the repository's charts/svc */
export const CHART_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../charts/svc');

/** $HELM, else helm on PATH, else the one `go install` put into $GOPATH/bin (not always on PATH). */
export function helmBinary(): string {
  if (process.env.HELM) return process.env.HELM;
  if (spawnSync('helm', ['version', '--short']).status === 0) return 'helm';
  const gopath = spawnSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).stdout?.trim();
  const installed = gopath ? path.join(gopath, 'bin', 'helm') : '';
  if (installed && existsSync(installed)) return installed;
  throw new Error('helm not found: run scripts/ensure-tools.sh (installs it with go install)');
}
