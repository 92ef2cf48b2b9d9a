/**
 * A throw-away PKI for tests that run a real kube-apiserver: one CA, certificates it issues (serving certificates
 * with IP/DNS SANs, client certificates whose O becomes the Kubernetes group) and a service-account signing key.
 * The openssl CLI does the work because node:crypto cannot issue X.509 certificates.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface IssuedCert {
  readonly certFile: string;
  readonly keyFile: string;
  readonly cert: string;
  readonly key: string;
}

export interface CertRequest {
  /** File name stem inside the PKI folder. */
  readonly name: string;
  readonly commonName: string;
  /** Subject O entries: Kubernetes reads them as the user's groups. */
  readonly organizations?: readonly string[];
  readonly ipAddresses?: readonly string[];
  readonly dnsNames?: readonly string[];
}

function openssl(args: readonly string[]): void {
  try {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`openssl ${args[0]} failed (is openssl installed? scripts/ensure-kube.sh installs it): ${stderr || (err as Error).message}`, { cause: err });
  }
}

// P-256 keys: generated in milliseconds, accepted by Go (kube-apiserver) and Node TLS alike.
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export class TestPki {
  readonly caFile: string;
  readonly ca: string;
  readonly caKey: string;
  private readonly caKeyFile: string;

  private constructor(readonly dir: string) {
    this.caFile = path.join(dir, 'ca.crt');
    this.caKeyFile = path.join(dir, 'ca.key');
    openssl(['req', '-x509', ...EC_KEY, '-keyout', this.caKeyFile, '-out', this.caFile, '-days', '2', '-subj', '/CN=svc-e2e-ca']);
    this.ca = readFileSync(this.caFile, 'utf8');
    this.caKey = readFileSync(this.caKeyFile, 'utf8');
  }

  /** Creates the CA inside `dir` (an existing, private folder). */
  static create(dir: string): TestPki {
    return new TestPki(dir);
  }

  issue(req: CertRequest): IssuedCert {
    const certFile = path.join(this.dir, `${req.name}.crt`);
    const keyFile = path.join(this.dir, `${req.name}.key`);
    const subject = [...(req.organizations ?? []).map((o) => `/O=${o}`), `/CN=${req.commonName}`].join('');
    const sans = [...(req.ipAddresses ?? []).map((ip) => `IP:${ip}`), ...(req.dnsNames ?? []).map((d) => `DNS:${d}`)];
    const extensions = [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      `extendedKeyUsage=${sans.length > 0 ? 'serverAuth' : 'clientAuth'}`,
      ...(sans.length > 0 ? [`subjectAltName=${sans.join(',')}`] : []),
    ];
    openssl([
      'req', '-x509', ...EC_KEY, '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', subject,
      '-CA', this.caFile, '-CAkey', this.caKeyFile,
      ...extensions.flatMap((e) => ['-addext', e]),
    ]);
    return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
  }

  /** An RSA key pair for signing service-account tokens: [private key file, public key file]. */
  serviceAccountKeys(): { privateKeyFile: string; publicKeyFile: string } {
    const privateKeyFile = path.join(this.dir, 'sa.key');
    const publicKeyFile = path.join(this.dir, 'sa.pub');
    openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', privateKeyFile]);
    openssl(['pkey', '-in', privateKeyFile, '-pubout', '-out', publicKeyFile]);
    return { privateKeyFile, publicKeyFile };
  }
}
