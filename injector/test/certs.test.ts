import { X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';
import { expect } from 'chai';
import { pino } from 'pino';
import { bundleProblem, generateCa, issueServingCert, serviceDnsNames, type KeyPairPem, type TlsBundle } from '../src/certs/generate.js';
import { SelfManagedTls } from '../src/certs/self-managed-tls.js';
import type { CaBundleTarget, StoredBundle, TlsBundleStore } from '../src/certs/stores.js';
import { InjectorProcess, removeTestCerts, writeTestCerts } from './support/injector-process.js';

const log = pino({ level: 'silent' });
const DAY = 86_400_000;
const NAMES = serviceDnsNames('svc-injector', 'svc-system');

/** In-memory Secret with resourceVersion semantics, like the API server's. */
class MemoryStore implements TlsBundleStore {
  stored: StoredBundle | undefined;
  writes = 0;
  /** Simulates another replica writing right before our next write. */
  interloper: TlsBundle | undefined;

  read(): Promise<StoredBundle | undefined> {
    return Promise.resolve(this.stored);
  }

  write(bundle: TlsBundle, previous: StoredBundle | undefined): Promise<boolean> {
    return Promise.resolve(this.writeNow(bundle, previous));
  }

  private writeNow(bundle: TlsBundle, previous: StoredBundle | undefined): boolean {
    if (this.interloper) {
      this.stored = { bundle: this.interloper, version: String(Number(this.stored?.version ?? 0) + 1) };
      this.interloper = undefined;
    }
    if ((previous?.version ?? undefined) !== this.stored?.version) return false;
    this.writes++;
    this.stored = { bundle, version: String(Number(this.stored?.version ?? 0) + 1) };
    return true;
  }
}

class MemoryCaBundle implements CaBundleTarget {
  ca: string | undefined;
  ensure(caPem: string): Promise<number> {
    const changed = this.ca === caPem ? 0 : 1;
    this.ca = caPem;
    return Promise.resolve(changed);
  }
}

/** A real TLS handshake: the client trusts only `ca` and checks the server name. */
function handshake(pair: KeyPairPem, ca: string, servername: string): Promise<string> {
  const server = https.createServer({ cert: pair.cert, key: pair.key }, (_req, res) => res.end('ok'));
  return new Promise((resolve, reject) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      const socket = tls.connect({ host: '127.0.0.1', port, servername, ca }, () => {
        resolve(socket.getPeerX509Certificate()?.serialNumber ?? '');
        socket.end();
        server.close();
      });
      socket.on('error', (err: Error) => {
        server.close();
        reject(err);
      });
    });
  });
}

describe('webhook TLS', () => {
  it('issues a CA and a serving certificate that a client trusting the CA accepts for every Service name', async () => {
    const now = new Date();
    const ca = generateCa({ commonName: 'ca', validityDays: 10, now });
    const serving = issueServingCert(ca, { dnsNames: NAMES, validityDays: 5, now });
    for (const name of NAMES) expect(await handshake(serving, ca.cert, name)).to.not.equal('');
    const cert = new X509Certificate(serving.cert);
    expect(cert.publicKey.asymmetricKeyType).to.equal('rsa');
    expect(cert.checkIssued(new X509Certificate(ca.cert))).to.equal(true);
    // Another CA, or a name the certificate does not carry, is refused.
    // IP names become IP SANs (a webhook called by URL, as in a test API server).
    const byIp = issueServingCert(ca, { dnsNames: ['localhost', '127.0.0.1'], validityDays: 5, now });
    expect(new X509Certificate(byIp.cert).subjectAltName).to.equal('DNS:localhost, IP Address:127.0.0.1');
    expect(bundleProblem({ ca, serving: byIp }, { dnsNames: ['localhost', '127.0.0.1'], now, renewBeforeMs: 0 })).to.equal(undefined);
    const other = generateCa({ commonName: 'other', validityDays: 10, now });
    await handshake(serving, other.cert, NAMES[0]!).then(() => expect.fail('untrusted CA accepted'), () => undefined);
    await handshake(serving, ca.cert, 'evil.example').then(() => expect.fail('wrong name accepted'), () => undefined);
  });

  it('says what to replace: nothing, the serving certificate (expiring, wrong names, wrong CA), or the CA', () => {
    const now = new Date();
    const ca = generateCa({ commonName: 'ca', validityDays: 3650, now });
    const good: TlsBundle = { ca, serving: issueServingCert(ca, { dnsNames: NAMES, validityDays: 365, now }) };
    const opts = { dnsNames: NAMES, now, renewBeforeMs: 30 * DAY };
    expect(bundleProblem(good, opts)).to.equal(undefined);
    expect(bundleProblem({ ca, serving: issueServingCert(ca, { dnsNames: NAMES, validityDays: 10, now }) }, opts)?.replace).to.equal('serving');
    expect(bundleProblem({ ca, serving: issueServingCert(ca, { dnsNames: ['other'], validityDays: 365, now }) }, opts)?.reason).to.contain('does not name');
    const foreign = generateCa({ commonName: 'x', validityDays: 3650, now });
    expect(bundleProblem({ ca, serving: issueServingCert(foreign, { dnsNames: NAMES, validityDays: 365, now }) }, opts)?.reason).to.contain('not signed by the CA');
    expect(bundleProblem({ ca: generateCa({ commonName: 'old', validityDays: 20, now }), serving: good.serving }, opts)?.replace).to.equal('ca');
    expect(bundleProblem({ ca: { cert: 'garbage', key: 'garbage' }, serving: good.serving }, opts)?.replace).to.equal('ca');
  });

  it('creates the Secret on first start, reuses it after, renews the serving certificate with the same CA', async () => {
    const store = new MemoryStore();
    const caBundle = new MemoryCaBundle();
    let clock = new Date();
    const make = () => new SelfManagedTls({ store, caBundle, dnsNames: NAMES, log, now: () => clock });

    const manager = make();
    const rotated: KeyPairPem[] = [];
    manager.onRotate((p) => rotated.push(p));
    const first = await manager.ensure();
    expect(store.writes).to.equal(1);
    const ca = store.stored!.bundle.ca.cert;
    expect(caBundle.ca).to.equal(ca);
    expect(await handshake(first, ca, NAMES[2]!)).to.not.equal('');

    const again = await make().ensure();
    expect(again.cert).to.equal(first.cert);
    expect(store.writes).to.equal(1);

    // 340 days later the serving certificate is within 30 days of expiry: re-issued, CA kept.
    clock = new Date(clock.getTime() + 340 * DAY);
    expect(rotated).to.deep.equal([]);
    const renewed = await manager.ensure();
    expect(rotated).to.deep.equal([renewed]);
    expect(renewed.cert).to.not.equal(first.cert);
    expect(store.stored!.bundle.ca.cert).to.equal(ca);
    expect(store.writes).to.equal(2);
  });

  it('adopts the bundle of a replica that wrote first instead of overwriting it', async () => {
    const store = new MemoryStore();
    const now = new Date();
    const theirsCa = generateCa({ commonName: 'theirs', validityDays: 3650, now });
    store.interloper = { ca: theirsCa, serving: issueServingCert(theirsCa, { dnsNames: NAMES, validityDays: 365, now }) };
    const caBundle = new MemoryCaBundle();
    const pair = await new SelfManagedTls({ store, caBundle, dnsNames: NAMES, log }).ensure();
    expect(pair.cert).to.equal(store.stored!.bundle.serving.cert);
    expect(caBundle.ca).to.equal(theirsCa.cert);
    expect(store.writes).to.equal(0);
  });

  it('the running injector serves a rotated certificate file without a restart', async () => {
    const certs = writeTestCerts();
    const injector = await InjectorProcess.start({ certs });
    try {
      const before = await peerSerial(injector.port, certs.ca.cert);
      const next = issueServingCert(certs.ca, { dnsNames: ['localhost'], validityDays: 1, now: new Date() });
      const reloaded = new Promise<void>((resolve) => {
        const onData = (d: Buffer) => {
          if (d.toString().includes('serving certificate reloaded')) {
            injector.child.stdout?.off('data', onData);
            resolve();
          }
        };
        injector.child.stdout?.on('data', onData);
      });
      writeFileSync(certs.keyFile, next.key);
      writeFileSync(certs.certFile, next.cert);
      await reloaded;
      const after = await peerSerial(injector.port, certs.ca.cert);
      expect(after).to.equal(new X509Certificate(next.cert).serialNumber);
      expect(after).to.not.equal(before);
    } finally {
      await injector.stop();
      removeTestCerts(certs);
    }
  });
});

function peerSerial(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', ca }, () => {
      resolve(socket.getPeerX509Certificate()?.serialNumber ?? '');
      socket.end();
    });
    socket.on('error', reject);
  });
}
