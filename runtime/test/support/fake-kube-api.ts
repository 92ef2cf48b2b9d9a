/**
 * A stand-in for the Kubernetes API server's Component list endpoint, for tests where no real API server runs:
 * GET /apis/svc.io/v1alpha1/namespaces/<ns>/components, with bearer-token auth, plus a kubeconfig pointing at it.
 */
import http from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export class FakeKubeApi {
  /** Namespace → Component objects served. */
  readonly components = new Map<string, object[]>();
  /** Status to answer instead (e.g. 403 to test RBAC errors). */
  failWith: number | undefined;
  readonly requests: Array<{ path: string; authorization: string | undefined }> = [];
  private constructor(private readonly server: http.Server, readonly url: string, readonly token: string) {}

  static async start(token = 'test-token'): Promise<FakeKubeApi> {
    const holder: { api?: FakeKubeApi } = {};
    const server = http.createServer((req, res) => holder.api!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.api = new FakeKubeApi(server, `http://127.0.0.1:${(server.address() as { port: number }).port}`, token);
    return holder.api;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.requests.push({ path: req.url ?? '', authorization: req.headers.authorization });
    const send = (status: number, body: object) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${this.token}`) return send(401, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401 });
    if (this.failWith) return send(this.failWith, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'components.svc.io is forbidden', code: this.failWith });
    const m = /^\/apis\/svc\.io\/v1alpha1\/namespaces\/([^/]+)\/components(\?.*)?$/.exec(req.url ?? '');
    if (req.method !== 'GET' || !m) return send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
    const items = (this.components.get(m[1]!) ?? []).map((c) => ({ apiVersion: 'svc.io/v1alpha1', kind: 'Component', ...c }));
    send(200, { apiVersion: 'svc.io/v1alpha1', kind: 'ComponentList', metadata: { resourceVersion: '1' }, items });
  }

  /** Writes a kubeconfig that reaches this server with its token; returns the file path. */
  writeKubeconfig(): string {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'fake-kube-')), 'kubeconfig');
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        // Plain HTTP: client-node only allows it with insecure-skip-tls-verify.
        'clusters: [{name: fake, cluster: {server: "' + this.url + '", insecure-skip-tls-verify: true}}]',
        'users: [{name: tester, user: {token: "' + this.token + '"}}]',
        'contexts: [{name: fake, context: {cluster: fake, user: tester, namespace: default}}]',
        'current-context: fake',
        '',
      ].join('\n'),
    );
    return file;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
