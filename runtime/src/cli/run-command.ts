/**
 * `svc run --app-id X -- <app command>`: svcd on the embedded store and the app together, like `dapr run`.
 * svcd starts first; once it answers its health check the app starts with the ports in its environment. With
 * `--app-port` the app starts at once instead: svcd waits for the app's port (actors, subscriptions) before it is
 * healthy, so waiting for svcd first would wait for ever. Each one's output is prefixed with its name. Ctrl-C
 * (SIGTERM, SIGHUP, or our output pipe closing) stops the app, then svcd, each gracefully (SIGTERM, then SIGKILL
 * after a grace period); when either one exits by itself the other is stopped too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { parsePort } from '../config/parse-values.js';
import { OPTIONS, type OptionDef, type OptionFlag } from '../config/options.js';
import { DEFAULT_RESOURCES_PATH, writeDefaultResources } from './default-resources.js';
import { CliError } from './svcd-client.js';
import { UsageError } from './usage-error.js';

/** svcd's launcher (bin/svcd.js, which loads the bundle), found by package name. */
const SVCD_MAIN = path.join(path.dirname(createRequire(import.meta.url).resolve('@svc/runtime/package.json')), 'bin', 'svcd.js');
const READY_TIMEOUT_MS = 30_000;
const READY_PROBE_MS = 50;
const STOP_GRACE_MS = 10_000;

export const RUN_USAGE = `Usage: svc run --app-id <id> [options] [-- <app command> [args...]]

Starts svcd (embedded SQLite state store and pub/sub, workflows ready) and then the app, and stops both together.

Options:
  --app-id <id>            the app's ID (required; env SVC_APP_ID)
  --http-port <n>          svcd's HTTP API port (default 3500; env SVC_HTTP_PORT)
  --grpc-port <n>          svcd's gRPC API port (default 50001; env SVC_GRPC_PORT)
  --metrics-port <n>       svcd's metrics port (default 9090; 0: off; env SVC_METRICS_PORT)
  --app-port <n>           the port the app listens on, for actors and subscriptions (default: none; env SVC_APP_PORT)
  --internal-grpc-port <n> sidecar-to-sidecar port: service invocation, actor calls between replicas (default: a free one; env SVC_INTERNAL_GRPC_PORT)
  --resources-path <dir>   component files (default ${DEFAULT_RESOURCES_PATH}; written by \`svc init\` when missing; env SVC_RESOURCES_PATH)
  --data-dir <dir>         where the SQLite store keeps its file (default .svc/data; env SVC_DATA_DIR)
  --log-level <level>      svcd's log level (debug, info, warn, error; env SVC_LOG_LEVEL)

A flag wins over its environment variable. The app gets SVC_HTTP_PORT, SVC_GRPC_PORT, SVC_GRPC_ADDRESS,
DAPR_HTTP_PORT and DAPR_GRPC_PORT. Any other svcd setting can be given through its SVC_* environment variable
(svcd --help lists them).
`;

/** Lines of a child's stream, each with a prefix, to our stdout. */
function relay(stream: NodeJS.ReadableStream | null, prefix: string): void {
  if (!stream) return;
  createInterface({ input: stream }).on('line', (line) => process.stdout.write(`${prefix} ${line}\n`));
}

const exited = (child: ChildProcess) => new Promise<number>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode ?? 1) : child.once('exit', (code) => resolve(code ?? 1))));

/** SIGTERM, then SIGKILL when it has not exited within the grace period. */
async function stop(child: ChildProcess, name: string): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  process.stdout.write(`svc: stopping ${name}\n`);
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    process.stdout.write(`svc: ${name} did not stop within ${STOP_GRACE_MS / 1000} s: killing it\n`);
    child.kill('SIGKILL');
  }, STOP_GRACE_MS);
  await exited(child);
  clearTimeout(timer);
}

/** Resolves once svcd answers 204 on /v1.0/healthz; rejects if it (or the app it waits for) exits first or it takes too long. */
async function ready(svcd: ChildProcess, httpPort: number, app: ChildProcess | undefined): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let gone: string | undefined;
  void exited(svcd).then(() => (gone ??= 'svcd exited before it was ready: see its lines above'));
  if (app) void exited(app).then((code) => (gone ??= `the app exited (code ${code}) before svcd was ready: see its lines above`));
  for (;;) {
    if (gone) throw new CliError(gone);
    try {
      if ((await fetch(`http://127.0.0.1:${httpPort}/v1.0/healthz`)).status === 204) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new CliError(`svcd was not ready within ${READY_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, READY_PROBE_MS));
  }
}

type Values = Record<string, string | boolean | undefined>;

const OPTION_BY_FLAG = new Map<string, OptionDef>((OPTIONS as readonly OptionDef[]).map((o) => [o.flag, o]));

/**
 * svcd's own rule (config/options.ts): the flag, else its environment variable, else svc run's own default where it
 * has one (a folder of the project instead of the home folder's), else svcd's.
 */
function setting(values: Values, flag: OptionFlag, ownDefault?: string): string {
  const given = values[flag];
  if (typeof given === 'string') return given;
  const option = OPTION_BY_FLAG.get(flag);
  const env = option?.env === undefined ? undefined : process.env[option.env];
  return env !== undefined && env !== '' ? env : (ownDefault ?? option?.default ?? '');
}

function port(values: Values, flag: OptionFlag): number {
  try {
    return parsePort(setting(values, flag));
  } catch (err) {
    throw new UsageError(`--${flag}: ${(err as Error).message}`);
  }
}

/**
 * Fails when something already listens on a port svcd is to take. Without this check a svcd already running there
 * answered our health check ("ready"), while ours died on "address already in use".
 */
async function ensureFree(host: string, ports: readonly { flag: string; port: number }[]): Promise<void> {
  for (const { flag, port: p } of ports) {
    if (p === 0) continue;
    const inUse = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'EADDRINUSE'));
      probe.listen(p, host, () => probe.close(() => resolve(false)));
    });
    if (inUse) throw new CliError(`port ${p} (--${flag}) is already in use on ${host}: another svcd (svc run, make run) or another program listens there; stop it, or give svc run --${flag} <free port>`);
  }
}

export async function runCommand(argv: readonly string[]): Promise<number> {
  const split = argv.indexOf('--');
  const own = split < 0 ? argv : argv.slice(0, split);
  const app = split < 0 ? [] : argv.slice(split + 1);
  let values;
  try {
    ({ values } = parseArgs({
      args: [...own],
      options: {
        'app-id': { type: 'string' },
        'http-port': { type: 'string' },
        'grpc-port': { type: 'string' },
        'metrics-port': { type: 'string' },
        'app-port': { type: 'string' },
        'internal-grpc-port': { type: 'string' },
        'resources-path': { type: 'string' },
        'data-dir': { type: 'string' },
        'log-level': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${RUN_USAGE}`);
  }
  if (values.help === true) {
    process.stdout.write(RUN_USAGE);
    return 0;
  }
  const appId = setting(values, 'app-id');
  if (appId === '') throw new UsageError(`--app-id is required\n\n${RUN_USAGE}`);
  const httpPort = port(values, 'http-port');
  const grpcPort = port(values, 'grpc-port');
  const metricsPort = port(values, 'metrics-port');
  const appPort = port(values, 'app-port');
  const resources = path.resolve(setting(values, 'resources-path', DEFAULT_RESOURCES_PATH));
  if (!existsSync(resources) || readdirSync(resources).length === 0) {
    for (const { file, what } of writeDefaultResources(resources)) process.stdout.write(`svc: created ${file} (${what})\n`);
  }
  const svcdArgs = [
    ...['--app-id', appId, '--http-port', String(httpPort), '--grpc-port', String(grpcPort), '--metrics-port', String(metricsPort)],
    ...['--resources-path', resources, '--data-dir', path.resolve(setting(values, 'data-dir', '.svc/data'))],
  ];
  if (appPort !== 0) svcdArgs.push('--app-port', String(appPort));
  // Unless given, svcd opens the replica-to-replica port (on a Redis or PostgreSQL actor store) on a free port.
  if (setting(values, 'internal-grpc-port') !== '') svcdArgs.push('--internal-grpc-port', String(port(values, 'internal-grpc-port')));
  if (values['log-level'] !== undefined) svcdArgs.push('--log-level', String(values['log-level']));
  await ensureFree(setting(values, 'listen-address'), [
    { flag: 'http-port', port: httpPort },
    { flag: 'grpc-port', port: grpcPort },
    { flag: 'metrics-port', port: metricsPort },
  ]);

  const startedAt = Date.now();
  process.stdout.write(`svc: starting svcd for app '${appId}' (resources ${resources})\n`);
  const svcd = spawn(process.execPath, [SVCD_MAIN, ...svcdArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  relay(svcd.stdout, '[svcd]');
  relay(svcd.stderr, '[svcd]');

  let stopping = false;
  let appProcess: ChildProcess | undefined;
  const stopAll = async () => {
    stopping = true;
    if (appProcess) await stop(appProcess, 'the app');
    await stop(svcd, 'svcd');
  };
  const onSignal = () => {
    if (stopping) return;
    process.stdout.write('\nsvc: stopping (Ctrl-C again has no effect; each gets a grace period)\n');
    void stopAll();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  // Whoever reads our output went away (`svc run … | head`, a closed terminal): nobody sees the two any more.
  process.stdout.on('error', () => void (stopping || stopAll()));
  // Should svc itself end any other way, the two do not outlive it.
  process.on('exit', () => {
    for (const child of [appProcess, svcd]) if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });

  const startApp = () => {
    const [command, ...args] = app as [string, ...string[]];
    process.stdout.write(`svc: starting the app: ${app.join(' ')}\n`);
    const env = { ...process.env, APP_ID: appId, SVC_HTTP_PORT: String(httpPort), SVC_GRPC_PORT: String(grpcPort), SVC_GRPC_ADDRESS: `localhost:${grpcPort}`, DAPR_HTTP_PORT: String(httpPort), DAPR_GRPC_PORT: String(grpcPort) };
    const child = spawn(command, args, { stdio: ['inherit', 'pipe', 'pipe'], env });
    appProcess = child;
    relay(child.stdout, '[app]');
    relay(child.stderr, '[app]');
    child.once('error', (err) => process.stdout.write(`svc: the app could not start: ${err.message}\n`));
  };
  // svcd waits for an app port before it is healthy: that app starts now, as dapr run does.
  if (app.length > 0 && appPort !== 0) startApp();

  try {
    await ready(svcd, httpPort, appProcess);
  } catch (err) {
    await stopAll();
    throw err;
  }
  process.stdout.write(`svc: svcd ready in ${Date.now() - startedAt} ms: HTTP http://127.0.0.1:${httpPort}, gRPC 127.0.0.1:${grpcPort}, UI http://127.0.0.1:${httpPort}/ui/\n`);

  if (app.length > 0 && !appProcess && !stopping) startApp();
  else if (app.length === 0) process.stdout.write('svc: no app command given (after --): svcd runs alone; Ctrl-C stops it\n');

  // Whichever ends first: svcd, the app, or a signal (stopAll then ends both).
  const svcdEnd = exited(svcd).then((code) => ({ who: 'svcd' as const, code }));
  const appEnd = appProcess ? exited(appProcess).then((code) => ({ who: 'app' as const, code })) : new Promise<never>(() => undefined);
  const first = await Promise.race([svcdEnd, appEnd]);
  if (stopping) {
    await stopAll();
    process.stdout.write('svc: stopped\n');
    return 0;
  }
  if (first.who === 'app') {
    process.stdout.write(`svc: the app exited with code ${first.code}\n`);
    await stopAll();
    return first.code;
  }
  process.stdout.write(`svc: svcd exited with code ${first.code}: see its lines above\n`);
  await stopAll();
  return 1;
}
