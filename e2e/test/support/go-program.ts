import { execFile, spawnSync } from 'node:child_process';
import { expect } from 'chai';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const HERE = path.dirname(fileURLToPath(import.meta.url));

/** One line of a program's stdout: what a scenario (or step) observed, or why it could not run to its end. */
export interface ScenarioLine {
  scenario?: string;
  step?: string;
  observed: Record<string, unknown> | null;
  error?: string;
}

export interface GoProgramRun {
  /** The exit status (1: some scenario reported an error), or why it did not exit normally. */
  exit: string;
  lines: ScenarioLine[];
  stderr: string;
}

/** The Go toolchain as scripts/ensure-kube.sh finds it: $GO, `go` on PATH, then /usr/local/go. */
function goCommand(): string {
  const candidates = [process.env.GO, 'go', '/usr/local/go/bin/go'].filter((c): c is string => c !== undefined && c !== '');
  const found = candidates.find((c) => spawnSync(c, ['version']).status === 0);
  if (found === undefined) {
    throw new Error(`Go is not installed (tried ${candidates.join(', ')}): this test builds e2e/go/workflow-sdk with it; install Go 1.22 or newer or set GO`);
  }
  return found;
}

/**
 * Builds the Go module e2e/go/<module> (a program on the Dapr Go SDK; its go.sum pins the SDK and everything it
 * pulls) and returns the binary's path, next to the compiled tests (git-ignored; `go build` relinks it only when a
 * source changed). The module cache and the module proxy provide the dependencies; `-mod=readonly` makes a go.sum that does not match
 * go.mod an error instead of an edit, whatever GOFLAGS says; `-buildvcs=false` keeps git out of it (no relink
 * per commit, no git needed).
 */
export async function buildGoProgram(module: string): Promise<string> {
  const source = path.resolve(HERE, '../../../go', module);
  const binary = path.resolve(HERE, '../../go', module);
  try {
    await run(goCommand(), ['build', '-mod=readonly', '-buildvcs=false', '-o', binary, '.'], { cwd: source, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const { stderr } = err as { stderr?: string };
    throw new Error(`go build in ${source} failed: ${stderr || String(err)}`, { cause: err });
  }
  return binary;
}

/**
 * Runs the program against a sidecar's gRPC port, as a Dapr app finds its sidecar (DAPR_GRPC_PORT,
 * DAPR_API_TOKEN), and resolves when it exited; the run is killed after `killAfterMs`.
 */
export async function runGoProgram(binary: string, opts: { grpcPort: number; apiToken?: string; args?: readonly string[]; killAfterMs: number }): Promise<GoProgramRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, DAPR_GRPC_PORT: String(opts.grpcPort) };
  if (opts.apiToken !== undefined) env.DAPR_API_TOKEN = opts.apiToken;
  else delete env.DAPR_API_TOKEN;
  delete env.DAPR_GRPC_ENDPOINT; // the SDK prefers it over DAPR_GRPC_PORT
  const args = [...(opts.args ?? [])];
  let stdout: string, stderr: string, exit: string;
  try {
    ({ stdout, stderr } = await run(binary, args, { env, timeout: opts.killAfterMs, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 }));
    exit = 'code 0';
  } catch (err) {
    // A non-zero exit (a scenario failed) still printed every line: the test reports them one by one.
    const failed = err as { stdout?: string; stderr?: string; code?: number | string; signal?: string };
    stdout = failed.stdout ?? '';
    stderr = failed.stderr ?? '';
    exit = failed.signal ? `killed by ${failed.signal}` : `code ${failed.code ?? '?'}`;
  }
  return { exit, lines: parseLines(stdout), stderr };
}

function parseLines(stdout: string): ScenarioLine[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as ScenarioLine;
      } catch {
        throw new Error(`the Go program printed a line that is not a scenario result: ${line}`);
      }
    });
}

/** What `step` observed in a run, failing the test (with the program's stderr) when it has no line or an error. */
export function stepObserved(program: GoProgramRun, step: string): Record<string, unknown> {
  const line = program.lines.find((l) => l.step === step);
  expect(line, `no line for ${step} (exit ${program.exit})\n${program.stderr}`).to.not.equal(undefined);
  expect(line!.error, `${step}: ${line!.error}`).to.equal(undefined);
  return line!.observed!;
}
