import path from 'node:path';
import { parseArgs } from 'node:util';
import { RuntimeError } from '../errors/runtime-error.js';
import { OPTIONS, type OptionDef, type OptionFlag } from './options.js';
import { parseBool, parseDuration, parsePort, parsePositiveInt, parseSize, parseTraceViewerUrl } from './parse-values.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The one validated configuration object of a svcd process. */
export interface RuntimeConfig {
  readonly appId: string;
  readonly mode: 'standalone' | 'kubernetes';
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly internalGrpcPort: number;
  readonly internalAddress: string;
  readonly placementLeaseTtlMs: number;
  readonly placementHeartbeatIntervalMs: number;
  readonly grpcKeepaliveTimeMs: number;
  readonly grpcKeepaliveTimeoutMs: number;
  readonly workflowTaskTimeoutMs: number;
  readonly metricsPort: number;
  readonly listenAddress: string;
  /** The metrics server answers without the API token: loopback unless asked, the pod's address in kubernetes mode. */
  readonly metricsListenAddress: string;
  readonly resourcesPaths: readonly string[];
  /** `--config`: a Configuration file, or the name of a Configuration resource; undefined when not given. */
  readonly config: string | undefined;
  readonly componentsSocketsFolder: string;
  /** Raw `--pluggable-trusted-uids` (see `socketOwnersFrom`). */
  readonly pluggableTrustedUids: string;
  readonly pluggableMaxReplyBytes: number;
  readonly pluggableReplyBudgetBytes: number;
  readonly pluggableWaitTimeoutMs: number;
  readonly pluggableProbeTimeoutMs: number;
  readonly pluggablePingIntervalMs: number;
  readonly dataDir: string;
  readonly logLevel: LogLevel;
  readonly logAsJson: boolean;
  readonly apiToken: string | undefined;
  /** `SVC_INVOKE_TOKEN`: the secret sidecars present to each other; undefined: the name resolution store keeps one. */
  readonly invokeToken: string | undefined;
  readonly maxRequestSizeBytes: number;
  /** Serve the web UI at /ui/. */
  readonly uiEnabled: boolean;
  /** `--trace-viewer-url`: a trace's page, `{traceId}` standing for its id; the UI links instances to it. */
  readonly traceViewerUrl: string | undefined;
  readonly componentInitTimeoutMs: number;
  readonly shutdownGracePeriodMs: number;
  readonly appPort: number;
  readonly appProtocol: 'http' | 'grpc';
  /** Undefined when app health checks are off. */
  readonly appHealth: { readonly path: string; readonly intervalMs: number; readonly timeoutMs: number; readonly threshold: number } | undefined;
  readonly namespace: string | undefined;
  readonly kubeconfig: string | undefined;
  /** Kubernetes mode: the file of the token this sidecar presents to the sidecars it calls. */
  readonly invokeTokenFile: string;
  readonly actorIdleTimeoutMs: number;
}

export type ParsedCommandLine =
  | { kind: 'help'; text: string }
  | { kind: 'version' }
  | { kind: 'run'; config: RuntimeConfig };

type RawValues = Map<OptionFlag, string | string[]>;

/** The internal port in kubernetes mode: the injector's `svc.io/internal-grpc-port` default, which its NetworkPolicy opens. */
const KUBERNETES_INTERNAL_GRPC_PORT = 50002;

const BOOL_FLAGS = new Set((OPTIONS as readonly OptionDef[]).filter((d) => d.kind === 'bool').map((d) => `--${d.flag}`));

/** A boolean flag may stand alone (`--log-as-json`) or take a value (`--log-as-json false`, `--log-as-json=false`). */
function withExplicitBooleans(argv: readonly string[]): string[] {
  const out: string[] = [];
  argv.forEach((arg, i) => {
    out.push(arg);
    const next = argv[i + 1];
    if (BOOL_FLAGS.has(arg) && (next === undefined || next.startsWith('--'))) out.push('true');
  });
  return out;
}

/** Flags win over env vars, env vars over defaults (docs/configuration.md). */
function collectRawValues(argv: readonly string[], env: NodeJS.ProcessEnv): RawValues | 'help' | 'version' {
  const cliOptions: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> = {
    help: { type: 'boolean' },
    version: { type: 'boolean' },
  };
  for (const def of OPTIONS as readonly OptionDef[]) {
    if (def.envOnly) continue;
    cliOptions[def.flag] = { type: 'string', multiple: def.kind === 'list' };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: withExplicitBooleans(argv), options: cliOptions, allowPositionals: false, strict: true });
  } catch (err) {
    throw new RuntimeError('ERR_CONFIG_INVALID', `${(err as Error).message} (see svcd --help)`);
  }
  if (parsed.values.help) return 'help';
  if (parsed.values.version) return 'version';

  const raw: RawValues = new Map();
  for (const def of OPTIONS as readonly OptionDef[]) {
    const fromCli = parsed.values[def.flag] as string | string[] | undefined;
    const fromEnv = def.env === undefined ? undefined : env[def.env];
    if (fromCli !== undefined) raw.set(def.flag as OptionFlag, fromCli);
    else if (fromEnv !== undefined && fromEnv !== '') {
      raw.set(def.flag as OptionFlag, def.kind === 'list' ? fromEnv.split(',').map((s) => s.trim()).filter(Boolean) : fromEnv);
    } else if (def.default !== undefined) {
      raw.set(def.flag as OptionFlag, def.kind === 'list' ? (def.default === '' ? [] : [def.default]) : def.default);
    }
  }
  return raw;
}

function typed<T>(raw: RawValues, flag: OptionFlag, parse: (v: string) => T): T {
  const def = OPTIONS.find((o) => o.flag === flag) as OptionDef;
  const value = raw.get(flag);
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  try {
    return parse(text);
  } catch (err) {
    const source = def.env ? `--${def.flag} / ${def.env}` : `--${def.flag}`;
    throw new RuntimeError('ERR_CONFIG_INVALID', `invalid ${source}: ${(err as Error).message}`);
  }
}

function oneOf<T extends string>(flag: OptionFlag) {
  const def = OPTIONS.find((o) => o.flag === flag) as OptionDef;
  return (v: string): T => {
    if (!def.choices?.includes(v)) throw new Error(`'${v}' is not one of ${def.choices?.join(', ')}`);
    return v as T;
  };
}

export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ParsedCommandLine {
  const raw = collectRawValues(argv, env);
  if (raw === 'help') return { kind: 'help', text: renderHelp() };
  if (raw === 'version') return { kind: 'version' };
  const list = (flag: OptionFlag): string[] => {
    const v = raw.get(flag);
    return Array.isArray(v) ? v : v ? [v] : [];
  };
  const str = (v: string) => v;
  const config: RuntimeConfig = {
    appId: typed(raw, 'app-id', str),
    mode: typed(raw, 'mode', oneOf<'standalone' | 'kubernetes'>('mode')),
    httpPort: typed(raw, 'http-port', parsePort),
    grpcPort: typed(raw, 'grpc-port', parsePort),
    // Kubernetes: the port the injector's NetworkPolicy opens between pods. Standalone: any free port, advertised in
    // the placement lease, so two svcd on one host never collide on it.
    internalGrpcPort: typed(raw, 'internal-grpc-port', str) === '' ? (typed(raw, 'mode', str) === 'kubernetes' ? KUBERNETES_INTERNAL_GRPC_PORT : 0) : typed(raw, 'internal-grpc-port', parsePort),
    internalAddress: typed(raw, 'internal-address', str),
    placementLeaseTtlMs: typed(raw, 'placement-lease-ttl', parseDuration),
    placementHeartbeatIntervalMs: typed(raw, 'placement-heartbeat-interval', parseDuration),
    grpcKeepaliveTimeMs: typed(raw, 'grpc-keepalive-time', parseDuration),
    grpcKeepaliveTimeoutMs: typed(raw, 'grpc-keepalive-timeout', parseDuration),
    workflowTaskTimeoutMs: typed(raw, 'workflow-task-timeout', parseDuration),
    metricsPort: typed(raw, 'metrics-port', parsePort),
    listenAddress: typed(raw, 'listen-address', str),
    metricsListenAddress: typed(raw, 'metrics-listen-address', str) || (typed(raw, 'mode', str) === 'kubernetes' ? typed(raw, 'listen-address', str) : '127.0.0.1'),
    resourcesPaths: list('resources-path').map((p) => path.resolve(p)),
    config: typed(raw, 'config', str) || undefined,
    componentsSocketsFolder: path.resolve(typed(raw, 'components-sockets-folder', str)),
    pluggableTrustedUids: typed(raw, 'pluggable-trusted-uids', str),
    pluggableMaxReplyBytes: typed(raw, 'pluggable-max-reply-size', parseSize),
    pluggableReplyBudgetBytes: typed(raw, 'pluggable-reply-budget', parseSize),
    pluggableWaitTimeoutMs: raw.get('pluggable-wait-timeout') ? typed(raw, 'pluggable-wait-timeout', parseDuration) : typed(raw, 'mode', str) === 'kubernetes' ? 10_000 : 0,
    pluggableProbeTimeoutMs: typed(raw, 'pluggable-probe-timeout', parseDuration),
    pluggablePingIntervalMs: typed(raw, 'pluggable-ping-interval', parseDuration),
    dataDir: path.resolve(typed(raw, 'data-dir', str)),
    logLevel: typed(raw, 'log-level', oneOf<LogLevel>('log-level')),
    logAsJson: typed(raw, 'log-as-json', parseBool),
    apiToken: env.SVC_API_TOKEN === undefined || env.SVC_API_TOKEN === '' ? undefined : env.SVC_API_TOKEN,
    invokeToken: env.SVC_INVOKE_TOKEN === undefined || env.SVC_INVOKE_TOKEN === '' ? undefined : env.SVC_INVOKE_TOKEN,
    maxRequestSizeBytes: typed(raw, 'max-request-size', parseSize),
    uiEnabled: typed(raw, 'enable-ui', parseBool),
    traceViewerUrl: typed(raw, 'trace-viewer-url', parseTraceViewerUrl),
    componentInitTimeoutMs: typed(raw, 'component-init-timeout', parseDuration),
    shutdownGracePeriodMs: typed(raw, 'shutdown-grace-period', parseDuration),
    appPort: typed(raw, 'app-port', parsePort),
    appProtocol: typed(raw, 'app-protocol', oneOf<'http' | 'grpc'>('app-protocol')),
    appHealth: typed(raw, 'enable-app-health-check', parseBool)
      ? {
          path: typed(raw, 'app-health-check-path', str),
          intervalMs: typed(raw, 'app-health-probe-interval', parseDuration),
          timeoutMs: typed(raw, 'app-health-probe-timeout', parseDuration),
          threshold: typed(raw, 'app-health-threshold', parsePositiveInt),
        }
      : undefined,
    namespace: typed(raw, 'namespace', str) || undefined,
    kubeconfig: typed(raw, 'kubeconfig', str) || undefined,
    invokeTokenFile: typed(raw, 'invoke-token-file', str),
    actorIdleTimeoutMs: typed(raw, 'actor-idle-timeout', parseDuration),
  };
  return { kind: 'run', config };
}

export function renderHelp(): string {
  const rows = (OPTIONS as readonly OptionDef[]).map((def) => {
    const name = def.envOnly ? `(env ${def.env})` : `--${def.flag} <${def.kind === 'list' ? 'path' : def.kind}>`;
    const extras = [
      def.env && !def.envOnly ? `env ${def.env}` : undefined,
      def.default !== undefined && def.default !== '' ? `default ${def.default}` : undefined,
      def.choices ? `one of ${def.choices.join('|')}` : undefined,
    ].filter(Boolean);
    return `  ${name.padEnd(42)} ${def.description}${extras.length ? ` [${extras.join('; ')}]` : ''}`;
  });
  return [
    'Usage: svcd [options]',
    '',
    'svcd is the svc sidecar runtime: building-block APIs over HTTP and gRPC, durable workflows, pluggable components.',
    'Flags win over environment variables, which win over defaults.',
    '',
    'Options:',
    ...rows,
    `  ${'--help'.padEnd(42)} Show this help`,
    `  ${'--version'.padEnd(42)} Print the version`,
    '',
  ].join('\n');
}
