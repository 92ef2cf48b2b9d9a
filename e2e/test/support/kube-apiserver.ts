/**
 * A real Kubernetes control plane for admission tests: etcd (Debian package) and kube-apiserver (built from the
 * Kubernetes module by scripts/ensure-kube.sh) on loopback, with a fresh data dir and PKI per run. No
 * controllers, scheduler or kubelet: objects are stored, admitted and validated for real, nothing runs them.
 *
 * Authorization is RBAC (not AlwaysAllow) so that the chart's Roles are what lets svcd and svc-injector read
 * Components when they run with service-account tokens; the test's admin is in system:masters.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@svc/runtime/test-support';
import { KubeClient, type KubeCredentials } from './kube-client.js';
import { TestPki } from './pki.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const OUTPUT_KEPT = 64 * 1024;

/** The cached binary of scripts/ensure-kube.sh (the script owns the version and the cache path). */
export function kubeApiServerBinary(): string {
  const res = spawnSync('bash', [path.join(REPO, 'scripts/ensure-kube.sh'), '--print-dir'], { encoding: 'utf8' });
  const bin = path.join(res.stdout.trim(), 'kube-apiserver');
  if (res.status !== 0 || !existsSync(bin)) {
    throw new Error(`kube-apiserver is not built (${bin} ${res.stderr}): run scripts/ensure-kube.sh (scripts/ensure-tools.sh calls it)`);
  }
  return bin;
}

function requireEtcd(): string {
  const res = spawnSync('etcd', ['--version'], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error('etcd is not installed: run scripts/ensure-kube.sh (installs Debian\'s etcd-server)');
  return 'etcd';
}

/** A child process whose exit is observable and whose recent output is kept for failure messages. */
class Child {
  private output = '';
  exitCode: number | null | undefined;
  readonly exited: Promise<void>;

  constructor(readonly name: string, readonly proc: ChildProcess) {
    const keep = (d: Buffer) => {
      this.output = (this.output + d.toString()).slice(-OUTPUT_KEPT);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => proc.once('exit', (code) => {
      this.exitCode = code;
      resolve();
    }));
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  tail(): string {
    return `--- ${this.name} output (last ${OUTPUT_KEPT / 1024} KiB) ---\n${this.output}`;
  }

  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

export interface KubeApiServerOptions {
  /** How long to wait for /readyz (default 60 s: a cold start on a busy 2-core machine). */
  readonly readyTimeoutMs?: number;
  /**
   * The API server presents a client certificate (CN kube-apiserver-webhook-client, signed by the test CA) to every
   * admission webhook, through an AdmissionConfiguration as docs/security.md describes.
   */
  readonly webhookClientCert?: boolean;
}

/** The AdmissionConfiguration and its kubeconfig: one client certificate for every webhook host (`*`). */
function writeWebhookClientConfig(dir: string, pki: TestPki): string {
  const client = pki.issue({ name: 'webhook-client', commonName: 'kube-apiserver-webhook-client' });
  const kubeconfig = path.join(dir, 'webhook-clients.kubeconfig');
  writeFileSync(kubeconfig, JSON.stringify({ apiVersion: 'v1', kind: 'Config', users: [{ name: '*', user: { 'client-certificate': client.certFile, 'client-key': client.keyFile } }] }));
  const plugin = (name: string) => ({ name, configuration: { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'WebhookAdmissionConfiguration', kubeConfigFile: kubeconfig } });
  const file = path.join(dir, 'admission.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration', plugins: [plugin('MutatingAdmissionWebhook'), plugin('ValidatingAdmissionWebhook')] }));
  return file;
}

export class KubeApiServer {
  /** Client authenticated as the test's cluster admin (group system:masters). */
  readonly admin: KubeClient;

  private constructor(
    readonly dir: string,
    readonly pki: TestPki,
    readonly server: string,
    private readonly etcd: Child,
    private readonly apiserver: Child,
    private readonly adminCredentials: KubeCredentials,
  ) {
    this.admin = new KubeClient(adminCredentials);
  }

  static async start(opts: KubeApiServerOptions = {}): Promise<KubeApiServer> {
    const binary = kubeApiServerBinary();
    const etcdBinary = requireEtcd();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-kube-'));
    const pki = TestPki.create(dir);
    const serving = pki.issue({ name: 'apiserver', commonName: 'kube-apiserver', ipAddresses: ['127.0.0.1'], dnsNames: ['localhost'] });
    const admin = pki.issue({ name: 'admin', commonName: 'svc-e2e-admin', organizations: ['system:masters'] });
    const sa = pki.serviceAccountKeys();
    const [etcdClient, etcdPeer, securePort] = [await freePort(), await freePort(), await freePort()];

    const etcdUrl = `http://127.0.0.1:${etcdClient}`;
    const peerUrl = `http://127.0.0.1:${etcdPeer}`;
    const etcd = new Child('etcd', spawn(etcdBinary, [
      '--name', 'svc-e2e',
      '--data-dir', path.join(dir, 'etcd'),
      '--listen-client-urls', etcdUrl,
      '--advertise-client-urls', etcdUrl,
      '--listen-peer-urls', peerUrl,
      '--initial-advertise-peer-urls', peerUrl,
      '--initial-cluster', `svc-e2e=${peerUrl}`,
      '--logger', 'zap',
    ], { stdio: ['ignore', 'pipe', 'pipe'] }));

    // kube-apiserver retries etcd until it answers, so both start at once and /readyz covers both.
    const apiserver = new Child('kube-apiserver', spawn(binary, [
      '--etcd-servers', etcdUrl,
      '--bind-address', '127.0.0.1',
      '--advertise-address', '127.0.0.1',
      '--secure-port', String(securePort),
      '--tls-cert-file', serving.certFile,
      '--tls-private-key-file', serving.keyFile,
      '--client-ca-file', pki.caFile,
      '--service-account-issuer', 'https://kubernetes.default.svc.cluster.local',
      '--service-account-key-file', sa.publicKeyFile,
      '--service-account-signing-key-file', sa.privateKeyFile,
      '--service-cluster-ip-range', '10.96.0.0/24',
      '--authorization-mode', 'RBAC',
      // On by default; named so that a default change cannot silently turn the webhook off.
      '--enable-admission-plugins', 'MutatingAdmissionWebhook,ValidatingAdmissionWebhook',
      // The kubernetes Service cannot get a loopback endpoint; nothing here needs it.
      '--endpoint-reconciler-type', 'none',
      '--enable-priority-and-fairness=false',
      '--profiling=false',
      '--cert-dir', path.join(dir, 'apiserver-certs'),
      ...(opts.webhookClientCert ? ['--admission-control-config-file', writeWebhookClientConfig(dir, pki)] : []),
    ], { stdio: ['ignore', 'pipe', 'pipe'] }));

    const server = `https://127.0.0.1:${securePort}`;
    const kube = new KubeApiServer(dir, pki, server, etcd, apiserver, { server, ca: pki.ca, cert: admin.cert, key: admin.key });
    try {
      await kube.waitReady(opts.readyTimeoutMs ?? 60_000);
    } catch (err) {
      await kube.stop();
      throw err;
    }
    return kube;
  }

  /** Polls /readyz: the API server offers no event for "all post-start hooks done". */
  private async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer';
    while (Date.now() < deadline) {
      for (const child of [this.etcd, this.apiserver]) {
        if (!child.running) throw new Error(`${child.name} exited with ${child.exitCode} before the API server was ready\n${child.tail()}`);
      }
      try {
        const res = await this.admin.request('GET', '/readyz');
        if (res.status === 200) return;
        last = `${res.status} ${res.text}`;
      } catch (err) {
        last = (err as Error).message;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`kube-apiserver not ready within ${timeoutMs} ms (last /readyz: ${last})\n${this.apiserver.tail()}\n${this.etcd.tail()}`);
  }

  /** Recent output of both processes, for assertion messages. */
  logs(): string {
    return `${this.apiserver.tail()}\n${this.etcd.tail()}`;
  }

  /** Writes a kubeconfig for the admin, or for `credentials` (e.g. a service-account token); returns its path. */
  writeKubeconfig(name: string, credentials: KubeCredentials = this.adminCredentials): string {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const user: Record<string, string> = {};
    if (credentials.token) user.token = credentials.token;
    if (credentials.cert && credentials.key) {
      user['client-certificate-data'] = b64(credentials.cert);
      user['client-key-data'] = b64(credentials.key);
    }
    const config = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'e2e', cluster: { server: credentials.server, 'certificate-authority-data': b64(credentials.ca) } }],
      users: [{ name, user }],
      contexts: [{ name: 'e2e', context: { cluster: 'e2e', user: name } }],
      'current-context': 'e2e',
    };
    const file = path.join(this.dir, `${name}.kubeconfig`);
    // JSON is YAML: every kubeconfig reader accepts it.
    writeFileSync(file, JSON.stringify(config, null, 2), { mode: 0o600 });
    return file;
  }

  /**
   * A bound token of a ServiceAccount (TokenRequest API: no token controller needed); for the API server unless
   * `audiences` says otherwise, and bound to a pod when given one (as the kubelet's projected tokens are).
   */
  async serviceAccountToken(namespace: string, serviceAccount: string, opts: { audiences?: string[]; pod?: { name: string; uid: string } } = {}): Promise<KubeCredentials> {
    const path = `/api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccount}/token`;
    const res = await this.admin.request<{ status?: { token?: string } }>('POST', path, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: {
        expirationSeconds: 3600,
        ...(opts.audiences ? { audiences: opts.audiences } : {}),
        ...(opts.pod ? { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', ...opts.pod } } : {}),
      },
    });
    const token = res.body.status?.token;
    if (res.status !== 201 || !token) throw new Error(`POST ${path} → ${res.status}: ${res.text}`);
    return { server: this.server, ca: this.pki.ca, token };
  }

  async stop(): Promise<void> {
    this.admin.close();
    await this.apiserver.stop();
    await this.etcd.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
