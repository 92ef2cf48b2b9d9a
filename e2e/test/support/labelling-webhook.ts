/**
 * A second mutating webhook for reinvocation tests: it adds one label to every pod it is sent, which makes the API
 * server call earlier webhooks with reinvocationPolicy IfNeeded again. It records the pods it saw.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';

interface PodSeen {
  readonly containers: string[];
}

export class LabellingWebhook {
  private constructor(
    private readonly server: https.Server,
    readonly seen: readonly PodSeen[],
  ) {}

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}/label`;
  }

  static async start(opts: { cert: string; key: string; label: string; value: string }): Promise<LabellingWebhook> {
    const seen: PodSeen[] = [];
    const server = https.createServer({ cert: opts.cert, key: opts.key }, (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (d: string) => (body += d));
      req.on('end', () => {
        const review = JSON.parse(body) as { request: { uid: string; object: { metadata?: { labels?: object }; spec?: { containers?: Array<{ name: string }> } } } };
        const pod = review.request.object;
        seen.push({ containers: (pod.spec?.containers ?? []).map((c) => c.name) });
        const pointer = `/metadata/labels/${opts.label.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        const patch = pod.metadata?.labels ? [{ op: 'add', path: pointer, value: opts.value }] : [{ op: 'add', path: '/metadata/labels', value: { [opts.label]: opts.value } }];
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: { uid: review.request.uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') },
        }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new LabellingWebhook(server, seen);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
