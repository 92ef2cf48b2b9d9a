/**
 * Every injector option is declared once here: flag, env var, default and description. `--help` and the
 * validated `InjectorConfig` are derived from this table. Flags win over env vars, env vars over defaults.
 */
import { parseArgs } from 'node:util';
import { InjectorError } from '../errors.js';

export type InjectorOptionKind = 'string' | 'port' | 'list' | 'enum';

export interface InjectorOptionDef {
  readonly flag: string;
  readonly env: string;
  readonly kind: InjectorOptionKind;
  readonly description: string;
  readonly default?: string;
  readonly choices?: readonly string[];
}

export const INJECTOR_OPTIONS = [
  { flag: 'port', env: 'SVC_INJECTOR_PORT', kind: 'port', default: '4000', description: 'HTTPS port of /mutate and /healthz' },
  { flag: 'listen-address', env: 'SVC_INJECTOR_LISTEN_ADDRESS', kind: 'string', default: '0.0.0.0', description: 'Address the HTTPS server binds to' },
  { flag: 'tls-cert-file', env: 'SVC_INJECTOR_TLS_CERT_FILE', kind: 'string', description: 'PEM serving certificate (with --tls-key-file); reloaded when the file changes' },
  { flag: 'tls-key-file', env: 'SVC_INJECTOR_TLS_KEY_FILE', kind: 'string', description: 'PEM private key of the serving certificate' },
  { flag: 'client-ca-file', env: 'SVC_INJECTOR_CLIENT_CA_FILE', kind: 'string', description: 'PEM CA of the client certificate the API server presents (AdmissionConfiguration): /mutate then answers only callers with a certificate it signed (401 otherwise)' },
  { flag: 'tls-secret', env: 'SVC_INJECTOR_TLS_SECRET', kind: 'string', description: 'Self-managed TLS: Secret (in --namespace) holding a generated CA and serving certificate, created or renewed at start and before expiry' },
  { flag: 'webhook-config', env: 'SVC_INJECTOR_WEBHOOK_CONFIG', kind: 'string', description: 'Self-managed TLS: MutatingWebhookConfiguration whose caBundle is kept in step with the CA' },
  { flag: 'service-name', env: 'SVC_INJECTOR_SERVICE_NAME', kind: 'string', default: 'svc-injector', description: 'Self-managed TLS: Service name the serving certificate is issued for' },
  { flag: 'namespace', env: 'NAMESPACE', kind: 'string', default: 'default', description: 'Namespace of the injector itself (TLS Secret, Service)' },
  { flag: 'kubeconfig', env: 'KUBECONFIG', kind: 'string', description: 'kubeconfig for API access; otherwise in-cluster config when present; otherwise no API access' },
  { flag: 'sidecar-image', env: 'SVC_SIDECAR_IMAGE', kind: 'string', default: 'svc/svcd:latest', description: 'svcd image injected unless a pod sets svc.io/sidecar-image' },
  { flag: 'sidecar-image-pull-policy', env: 'SVC_SIDECAR_IMAGE_PULL_POLICY', kind: 'enum', choices: ['Always', 'IfNotPresent', 'Never'], default: 'IfNotPresent', description: 'imagePullPolicy of the svcd container' },
  { flag: 'allowed-service-accounts', env: 'SVC_ALLOWED_SERVICE_ACCOUNTS', kind: 'list', default: '', description: 'Extra pod creators trusted for injection, as namespace:name globs (* ? allowed), added to the built-in pod-creating controllers' },
  { flag: 'allowed-groups', env: 'SVC_ALLOWED_GROUPS', kind: 'list', default: 'system:masters', description: 'Groups whose members are trusted pod creators (empty value: none)' },
  { flag: 'components-sockets-folder', env: 'SVC_COMPONENTS_SOCKETS_FOLDER', kind: 'string', default: '/tmp/svc-components-sockets', description: 'Default mount path of the pluggable-component socket volume' },
  { flag: 'component-container-policy', env: 'SVC_COMPONENT_CONTAINER_POLICY', kind: 'enum', choices: ['restricted', 'baseline', 'privileged'], default: 'restricted', description: 'What component containers may set, by Pod Security Standard level: a container asking for more denies the pod, naming the field' },
  { flag: 'log-level', env: 'SVC_INJECTOR_LOG_LEVEL', kind: 'enum', choices: ['debug', 'info', 'warn', 'error'], default: 'info', description: 'Log level (logs are JSON lines)' },
] as const satisfies readonly InjectorOptionDef[];

export type InjectorOptionFlag = (typeof INJECTOR_OPTIONS)[number]['flag'];

export interface InjectorConfig {
  readonly port: number;
  readonly listenAddress: string;
  readonly tlsCertFile: string | undefined;
  readonly tlsKeyFile: string | undefined;
  readonly clientCaFile: string | undefined;
  readonly tlsSecret: string | undefined;
  readonly webhookConfig: string | undefined;
  readonly serviceName: string;
  readonly namespace: string;
  readonly kubeconfig: string | undefined;
  readonly sidecarImage: string;
  readonly sidecarImagePullPolicy: 'Always' | 'IfNotPresent' | 'Never';
  readonly allowedServiceAccounts: readonly string[];
  readonly allowedGroups: readonly string[];
  readonly componentsSocketsFolder: string;
  readonly componentContainerPolicy: 'restricted' | 'baseline' | 'privileged';
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
}

export type ParsedInjectorCommandLine = { kind: 'help'; text: string } | { kind: 'run'; config: InjectorConfig };

function rawValues(argv: readonly string[], env: NodeJS.ProcessEnv): Map<InjectorOptionFlag, string> | 'help' {
  const cli: Record<string, { type: 'string' | 'boolean' }> = { help: { type: 'boolean' } };
  for (const def of INJECTOR_OPTIONS) cli[def.flag] = { type: 'string' };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...argv], options: cli, strict: true, allowPositionals: false });
  } catch (err) {
    throw new InjectorError('ERR_CONFIG_INVALID', `${(err as Error).message} (see svc-injector --help)`);
  }
  if (parsed.values.help) return 'help';
  const out = new Map<InjectorOptionFlag, string>();
  for (const def of INJECTOR_OPTIONS as readonly InjectorOptionDef[]) {
    const fromCli = parsed.values[def.flag];
    const fromEnv = env[def.env];
    // An empty value clears a list (--allowed-groups= or SVC_ALLOWED_GROUPS=""); for other options an empty env
    // var counts as unset.
    const envSet = fromEnv !== undefined && (fromEnv !== '' || def.kind === 'list');
    const value = typeof fromCli === 'string' ? fromCli : envSet ? fromEnv : def.default;
    if (value !== undefined) out.set(def.flag as InjectorOptionFlag, value);
  }
  return out;
}

function check(def: InjectorOptionDef, value: string): void {
  if (def.kind === 'port') {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`'${value}' is not a port number (0-65535)`);
  }
  if (def.kind === 'enum' && !def.choices?.includes(value)) throw new Error(`'${value}' is not one of ${def.choices?.join(', ')}`);
}

export function parseInjectorCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ParsedInjectorCommandLine {
  const raw = rawValues(argv, env);
  if (raw === 'help') return { kind: 'help', text: renderInjectorHelp() };
  for (const def of INJECTOR_OPTIONS as readonly InjectorOptionDef[]) {
    const value = raw.get(def.flag as InjectorOptionFlag);
    if (value === undefined) continue;
    try {
      check(def, value);
    } catch (err) {
      throw new InjectorError('ERR_CONFIG_INVALID', `invalid --${def.flag} / ${def.env}: ${(err as Error).message}`);
    }
  }
  const str = (flag: InjectorOptionFlag): string | undefined => {
    const v = raw.get(flag);
    return v === undefined || v === '' ? undefined : v;
  };
  const list = (flag: InjectorOptionFlag): string[] => (raw.get(flag) ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const config: InjectorConfig = {
    port: Number(raw.get('port')),
    listenAddress: str('listen-address') ?? '0.0.0.0',
    tlsCertFile: str('tls-cert-file'),
    tlsKeyFile: str('tls-key-file'),
    clientCaFile: str('client-ca-file'),
    tlsSecret: str('tls-secret'),
    webhookConfig: str('webhook-config'),
    serviceName: str('service-name') ?? 'svc-injector',
    namespace: str('namespace') ?? 'default',
    kubeconfig: str('kubeconfig'),
    sidecarImage: str('sidecar-image') ?? 'svc/svcd:latest',
    sidecarImagePullPolicy: raw.get('sidecar-image-pull-policy') as InjectorConfig['sidecarImagePullPolicy'],
    allowedServiceAccounts: list('allowed-service-accounts'),
    allowedGroups: list('allowed-groups'),
    componentsSocketsFolder: str('components-sockets-folder') ?? '/tmp/svc-components-sockets',
    componentContainerPolicy: raw.get('component-container-policy') as InjectorConfig['componentContainerPolicy'],
    logLevel: raw.get('log-level') as InjectorConfig['logLevel'],
  };
  const fileTls = config.tlsCertFile !== undefined || config.tlsKeyFile !== undefined;
  if (fileTls && (config.tlsCertFile === undefined || config.tlsKeyFile === undefined)) {
    throw new InjectorError('ERR_CONFIG_INVALID', '--tls-cert-file and --tls-key-file go together');
  }
  if (fileTls === (config.tlsSecret !== undefined)) {
    throw new InjectorError('ERR_CONFIG_INVALID', 'serving TLS needs either --tls-cert-file/--tls-key-file or --tls-secret (self-managed), not both');
  }
  return { kind: 'run', config };
}

export function renderInjectorHelp(): string {
  const rows = (INJECTOR_OPTIONS as readonly InjectorOptionDef[]).map((def) => {
    const extras = [`env ${def.env}`, def.default ? `default ${def.default}` : undefined, def.choices ? `one of ${def.choices.join('|')}` : undefined].filter(Boolean);
    return `  ${`--${def.flag} <${def.kind === 'list' ? 'a,b' : def.kind}>`.padEnd(40)} ${def.description} [${extras.join('; ')}]`;
  });
  return [
    'Usage: svc-injector [options]',
    '',
    'svc-injector is the mutating admission webhook that injects the svcd sidecar and pluggable components',
    'into pods annotated svc.io/enabled: "true". It serves POST /mutate (AdmissionReview v1) and GET /healthz over HTTPS.',
    'Flags win over environment variables, which win over defaults.',
    '',
    'Options:',
    ...rows,
    `  ${'--help'.padEnd(40)} Show this help`,
    '',
  ].join('\n');
}
