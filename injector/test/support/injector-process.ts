/** The real svc-injector binary as a child process, on a free port, with a test CA and serving certificate. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCa, issueServingCert, type KeyPairPem } from '../../src/certs/generate.js';

export const INJECTOR_MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/main.js');

export interface TestCerts {
  readonly dir: string;
  readonly ca: KeyPairPem;
  readonly certFile: string;
  readonly keyFile: string;
}

/** A test CA and a serving certificate for `names` (DNS names or IP addresses), written as PEM files. */
export function writeTestCerts(dnsNames: string[] = ['localhost', '127.0.0.1']): TestCerts {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-injector-test-'));
  const ca = generateCa({ commonName: 'test-ca', validityDays: 2, now: new Date() });
  const serving = issueServingCert(ca, { dnsNames, validityDays: 1, now: new Date() });
  const certFile = path.join(dir, 'tls.crt');
  const keyFile = path.join(dir, 'tls.key');
  writeFileSync(certFile, serving.cert);
  writeFileSync(keyFile, serving.key);
  return { dir, ca, certFile, keyFile };
}

/** Removes the folder `writeTestCerts` made, once the injector using it has stopped. */
export function removeTestCerts(certs: TestCerts): void {
  rmSync(certs.dir, { recursive: true, force: true });
}

export class InjectorProcess {
  output = '';

  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
    readonly ca: string,
  ) {}

  static async start(opts: { certs: TestCerts; args?: string[]; env?: Record<string, string> }): Promise<InjectorProcess> {
    const args = [INJECTOR_MAIN, '--port', '0', '--listen-address', '127.0.0.1', '--tls-cert-file', opts.certs.certFile, '--tls-key-file', opts.certs.keyFile, ...(opts.args ?? [])];
    const env: Record<string, string> = { ...(process.env as Record<string, string>), ...opts.env };
    // The injector would otherwise pick up the developer's kubeconfig.
    if (!opts.env?.KUBECONFIG) delete env.KUBECONFIG;
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const port = await new Promise<number>((resolve, reject) => {
      const onData = (d: Buffer) => {
        output += d.toString();
        const m = /"port":(\d+).*"msg":"svc-injector started"/.exec(output);
        if (m) resolve(Number(m[1]));
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', (code) => reject(new Error(`svc-injector exited with ${code}:\n${output}`)));
    });
    const proc = new InjectorProcess(child, port, opts.certs.ca.cert);
    proc.output = output;
    child.stdout.on('data', (d: Buffer) => (proc.output += d.toString()));
    return proc;
  }

  request(opts: { method?: string; path: string; body?: string | object; contentType?: string; clientCert?: KeyPairPem }): Promise<{ status: number; body: unknown; text: string }> {
    const payload = opts.body === undefined ? '' : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          servername: 'localhost',
          port: this.port,
          method: opts.method ?? 'POST',
          path: opts.path,
          ca: this.ca,
          ...(opts.clientCert ? { cert: opts.clientCert.cert, key: opts.clientCert.key } : {}),
          headers: { 'content-type': opts.contentType ?? 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => {
            let body: unknown;
            try {
              body = JSON.parse(text);
            } catch {
              body = undefined;
            }
            resolve({ status: res.statusCode ?? 0, body, text });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** Resolves once the output (so far or to come) matches `pattern`: log lines arrive apart from HTTP answers. */
  waitForOutput(pattern: RegExp, timeoutMs = 10_000): Promise<void> {
    if (pattern.test(this.output)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.child.stdout?.off('data', onData);
        reject(new Error(`svc-injector output did not match ${pattern} within ${timeoutMs} ms:\n${this.output}`));
      }, timeoutMs);
      // Registered after start()'s own listener, so this.output already holds the chunk.
      const onData = () => {
        if (!pattern.test(this.output)) return;
        clearTimeout(timer);
        this.child.stdout?.off('data', onData);
        resolve();
      };
      this.child.stdout?.on('data', onData);
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}
