import https from 'node:https';
import type Koa from 'koa';
import type { KeyPairPem } from '../certs/generate.js';

/** The HTTPS listener; `rotate` swaps the serving certificate for new connections. */
export class WebhookServer {
  private readonly server: https.Server;

  /**
   * With `clientCa`, every TLS handshake asks for a client certificate and checks it against that CA; the app
   * decides per route what an unverified caller may do (health probes carry no certificate).
   */
  constructor(app: Koa, pair: KeyPairPem, clientCa?: string) {
    const handle = app.callback();
    const clientAuth = clientCa === undefined ? {} : { requestCert: true, rejectUnauthorized: false, ca: clientCa };
    this.server = https.createServer({ cert: pair.cert, key: pair.key, minVersion: 'TLSv1.2', ...clientAuth }, (req, res) => void handle(req, res));
  }

  start(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const address = this.server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  }

  rotate(pair: KeyPairPem): void {
    this.server.setSecureContext({ cert: pair.cert, key: pair.key });
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
    });
  }
}
