#!/usr/bin/env node
/**
 * svc-injector wiring: options → logger → API access → serving TLS → webhook server; stop on SIGTERM/SIGINT.
 * Every part lives in its own module; this file only connects them.
 */
import { readFileSync } from 'node:fs';
import { pino, type Logger } from 'pino';
import { FileTls } from './certs/file-tls.js';
import { serviceDnsNames, type KeyPairPem } from './certs/generate.js';
import { SelfManagedTls } from './certs/self-managed-tls.js';
import { SecretBundleStore, WebhookCaBundle } from './certs/stores.js';
import { KubernetesComponentSource } from './components/component-source.js';
import { parseInjectorCommandLine, type InjectorConfig } from './config/options.js';
import { ensureError, InjectorError } from './errors.js';
import { loadKubeConfig } from './kube/access.js';
import { createWebhookApp } from './webhook/app.js';
import { MutationService } from './webhook/mutation.js';
import { WebhookServer } from './webhook/server.js';
import { CreatorTrust } from './webhook/trust.js';

interface ServingTls {
  readonly pair: KeyPairPem;
  onRotate(listener: (pair: KeyPairPem) => void): void;
  stop(): void;
}

/** The client CA PEM, read once at start (a missing or empty file is a configuration error). */
function readClientCa(file: string): string {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    throw new InjectorError('ERR_CONFIG_INVALID', `cannot read --client-ca-file ${file}: ${ensureError(err).message}`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new InjectorError('ERR_CONFIG_INVALID', `--client-ca-file ${file} holds no PEM certificate`);
  return pem;
}

async function servingTls(config: InjectorConfig, kc: ReturnType<typeof loadKubeConfig>, log: Logger): Promise<ServingTls> {
  if (config.tlsCertFile && config.tlsKeyFile) {
    const files = new FileTls(config.tlsCertFile, config.tlsKeyFile, log);
    return { pair: files.pair, onRotate: (l) => files.watch(l), stop: () => files.stop() };
  }
  if (!kc) throw new InjectorError('ERR_CONFIG_INVALID', '--tls-secret needs Kubernetes API access (in-cluster or --kubeconfig)');
  const managed = new SelfManagedTls({
    store: new SecretBundleStore(kc, config.namespace, config.tlsSecret!),
    caBundle: config.webhookConfig ? new WebhookCaBundle(kc, config.webhookConfig) : undefined,
    dnsNames: serviceDnsNames(config.serviceName, config.namespace),
    log,
  });
  const pair = await managed.ensure();
  managed.scheduleRenewal();
  return { pair, onRotate: (l) => managed.onRotate(l), stop: () => managed.stop() };
}

async function run(config: InjectorConfig, log: Logger): Promise<() => Promise<void>> {
  const kc = loadKubeConfig(config.kubeconfig);
  if (!kc) log.warn('no Kubernetes API access: svc.io/inject-pluggable-components pods get svcd and a warning, no component containers');
  const tls = await servingTls(config, kc, log);
  const mutation = new MutationService({
    trust: new CreatorTrust({ extraServiceAccounts: config.allowedServiceAccounts, groups: config.allowedGroups }),
    components: kc ? new KubernetesComponentSource(kc) : undefined,
    settings: { sidecarImage: config.sidecarImage, sidecarImagePullPolicy: config.sidecarImagePullPolicy, socketsFolder: config.componentsSocketsFolder, componentContainerPolicy: config.componentContainerPolicy },
    log,
  });
  let ready = false;
  const clientCa = config.clientCaFile === undefined ? undefined : readClientCa(config.clientCaFile);
  const server = new WebhookServer(createWebhookApp({ mutation, log, ready: () => ready, requireClientCert: clientCa !== undefined }), tls.pair, clientCa);
  tls.onRotate((pair) => server.rotate(pair));
  const port = await server.start(config.listenAddress, config.port);
  ready = true;
  log.info({ port, listenAddress: config.listenAddress, apiAccess: kc !== undefined, clientAuth: clientCa !== undefined, sidecarImage: config.sidecarImage }, 'svc-injector started');
  if (!clientCa) log.warn('no --client-ca-file: anyone who reaches the injector port is answered; component containers with literal env values are refused (docs/security.md)');
  return async () => {
    ready = false;
    tls.stop();
    await server.stop();
  };
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseInjectorCommandLine(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`svc-injector: ${ensureError(err).message}\n`);
    process.exit(2);
  }
  if (parsed.kind === 'help') {
    process.stdout.write(parsed.text);
    return;
  }
  const log = pino({ name: 'svc-injector', level: parsed.config.logLevel, formatters: { level: (label) => ({ level: label }) }, timestamp: pino.stdTimeFunctions.isoTime });
  let stop: () => Promise<void>;
  try {
    stop = await run(parsed.config, log);
  } catch (err) {
    log.fatal({ err: ensureError(err).message }, 'svc-injector failed to start');
    process.exit(1);
  }
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'svc-injector stopping');
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err: ensureError(err).message }, 'svc-injector stopped with errors');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

void main();
