/**
 * Pure certificate work for the webhook's self-managed TLS: a self-signed CA, a serving certificate it signs, and
 * the checks that say when either must be replaced. RSA keys: some API servers reject other serving key types.
 */
import { generateKeyPairSync, X509Certificate, createPrivateKey, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';

export interface KeyPairPem {
  readonly cert: string;
  readonly key: string;
}

export interface TlsBundle {
  readonly ca: KeyPairPem;
  readonly serving: KeyPairPem;
}

const DAY_MS = 86_400_000;

function newRsaKey(): { pem: string; forgeKey: forge.pki.rsa.PrivateKey; forgePublic: forge.pki.rsa.PublicKey } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const forgeKey = forge.pki.privateKeyFromPem(pem);
  return { pem, forgeKey, forgePublic: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e) };
}

function baseCert(publicKey: forge.pki.PublicKey, now: Date, validityDays: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  // Positive serial: the high bit cleared.
  cert.serialNumber = '01' + randomBytes(15).toString('hex');
  // A little slack for clocks that run behind ours.
  cert.validity.notBefore = new Date(now.getTime() - 5 * 60_000);
  cert.validity.notAfter = new Date(now.getTime() + validityDays * DAY_MS);
  return cert;
}

export function generateCa(opts: { commonName: string; validityDays: number; now: Date }): KeyPairPem {
  const key = newRsaKey();
  const cert = baseCert(key.forgePublic, opts.now, opts.validityDays);
  const subject = [{ name: 'commonName', value: opts.commonName }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(key.forgeKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: key.pem };
}

export function issueServingCert(ca: KeyPairPem, opts: { dnsNames: readonly string[]; validityDays: number; now: Date }): KeyPairPem {
  const caCert = forge.pki.certificateFromPem(ca.cert);
  const caKey = forge.pki.privateKeyFromPem(ca.key);
  const key = newRsaKey();
  const cert = baseCert(key.forgePublic, opts.now, opts.validityDays);
  cert.setSubject([{ name: 'commonName', value: opts.dnsNames[0] ?? 'svc-injector' }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    // IP addresses become IP SANs (type 7), for a webhook reached by URL such as https://127.0.0.1:8443/mutate.
    { name: 'subjectAltName', altNames: opts.dnsNames.map((value) => (isIP(value) ? { type: 7, ip: value } : { type: 2, value })) },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: key.pem };
}

/** The DNS names the API server uses to reach the webhook Service. */
export function serviceDnsNames(service: string, namespace: string): string[] {
  return [service, `${service}.${namespace}`, `${service}.${namespace}.svc`, `${service}.${namespace}.svc.cluster.local`];
}

/**
 * Why the bundle cannot be used as it is (`'ca'`: replace everything; `'serving'`: re-issue the serving
 * certificate with the same CA), or undefined when it is good until `now + renewBeforeMs`.
 */
export function bundleProblem(
  bundle: TlsBundle,
  opts: { dnsNames: readonly string[]; now: Date; renewBeforeMs: number },
): { replace: 'ca' | 'serving'; reason: string } | undefined {
  let ca: X509Certificate;
  try {
    ca = new X509Certificate(bundle.ca.cert);
    if (!ca.checkPrivateKey(createPrivateKey(bundle.ca.key))) return { replace: 'ca', reason: 'the CA key does not match the CA certificate' };
  } catch (err) {
    return { replace: 'ca', reason: `unreadable CA: ${(err as Error).message}` };
  }
  const deadline = opts.now.getTime() + opts.renewBeforeMs;
  if (new Date(ca.validTo).getTime() <= deadline) return { replace: 'ca', reason: `the CA expires ${ca.validTo}` };
  let serving: X509Certificate;
  try {
    serving = new X509Certificate(bundle.serving.cert);
    if (!serving.checkPrivateKey(createPrivateKey(bundle.serving.key))) return { replace: 'serving', reason: 'the serving key does not match its certificate' };
  } catch (err) {
    return { replace: 'serving', reason: `unreadable serving certificate: ${(err as Error).message}` };
  }
  if (!serving.verify(ca.publicKey)) return { replace: 'serving', reason: 'the serving certificate is not signed by the CA' };
  if (new Date(serving.validTo).getTime() <= deadline) return { replace: 'serving', reason: `the serving certificate expires ${serving.validTo}` };
  const names = (serving.subjectAltName ?? '').split(', ');
  const missing = opts.dnsNames.filter((n) => !names.includes(isIP(n) ? `IP Address:${n}` : `DNS:${n}`));
  if (missing.length > 0) return { replace: 'serving', reason: `the serving certificate does not name ${missing.join(', ')}` };
  return undefined;
}

export function notAfter(certPem: string): Date {
  return new Date(new X509Certificate(certPem).validTo);
}
