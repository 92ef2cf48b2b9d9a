/**
 * A small HTTPS client for a test kube-apiserver: raw requests with the response's admission warnings (the
 * `Warning` header, one value per warning), create/get/patch helpers, and waits driven by watch events.
 */
import https from 'node:https';

export interface KubeCredentials {
  readonly server: string;
  readonly ca: string;
  /** Client certificate (admin) or bearer token (service account). */
  readonly cert?: string;
  readonly key?: string;
  readonly token?: string;
}

export interface KubeResponse<T = unknown> {
  readonly status: number;
  readonly body: T;
  readonly text: string;
  /** Texts of the `Warning: 299 - "<text>"` headers, in order. */
  readonly warnings: string[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; generateName?: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** `299 - "text"` → text (RFC 7234 warn-text with Go-style escaping of quotes and backslashes). */
export function parseWarningHeader(value: string): string | undefined {
  const m = /^\d{3} \S+ "((?:[^"\\]|\\.)*)"/.exec(value);
  return m ? m[1]!.replace(/\\(.)/g, '$1') : undefined;
}

/** Kinds whose plural is not the kind + "s". */
const IRREGULAR_PLURALS: Readonly<Record<string, string>> = { NetworkPolicy: 'networkpolicies', Resiliency: 'resiliencies' };

/** REST collection of an object: namespaced when it names a namespace. */
export function collectionPath(obj: KubeObject): string {
  const { apiVersion, kind } = obj;
  if (!apiVersion || !kind) throw new Error(`object ${obj.metadata.name ?? ''} lacks apiVersion or kind`);
  const plural = IRREGULAR_PLURALS[kind] ?? `${kind.toLowerCase()}s`;
  if (!IRREGULAR_PLURALS[kind] && /[sy]$/.test(kind)) throw new Error(`cannot derive the plural of kind ${kind}: add it to IRREGULAR_PLURALS`);
  const group = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const ns = obj.metadata.namespace ? `/namespaces/${obj.metadata.namespace}` : '';
  return `${group}${ns}/${plural}`;
}

export class KubeClient {
  private readonly agent: https.Agent;
  private readonly url: URL;

  constructor(readonly credentials: KubeCredentials) {
    this.url = new URL(credentials.server);
    this.agent = new https.Agent({ ca: credentials.ca, cert: credentials.cert, key: credentials.key, keepAlive: true });
  }

  request<T = unknown>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<KubeResponse<T>> {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (payload !== undefined) headers['content-type'] = contentType;
    if (this.credentials.token) headers.authorization = `Bearer ${this.credentials.token}`;
    return new Promise((resolve, reject) => {
      const req = https.request({ host: this.url.hostname, port: this.url.port, method, path, agent: this.agent, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          const warnings: string[] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            if (res.rawHeaders[i]!.toLowerCase() !== 'warning') continue;
            const warning = parseWarningHeader(res.rawHeaders[i + 1]!);
            if (warning !== undefined) warnings.push(warning);
          }
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON (e.g. /readyz): keep the text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed as T, text, warnings });
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** POST and insist on 201 (or 200): the created object, with the warnings the API server returned. */
  async create<T extends KubeObject = KubeObject>(collectionPath: string, obj: unknown, contentType?: string): Promise<KubeResponse<T>> {
    const res = await this.request<T>('POST', collectionPath, obj, contentType);
    if (res.status !== 201 && res.status !== 200) throw new Error(`POST ${collectionPath} → ${res.status}: ${res.text}`);
    return res;
  }

  /** Creates any object of the core or a named group whose plural is its kind + "s" (all the kinds tests apply). */
  apply<T extends KubeObject = KubeObject>(obj: KubeObject, query = ''): Promise<KubeResponse<T>> {
    return this.create<T>(`${collectionPath(obj)}${query}`, obj);
  }

  async get<T extends KubeObject = KubeObject>(path: string): Promise<T> {
    const res = await this.request<T>('GET', path);
    if (res.status !== 200) throw new Error(`GET ${path} → ${res.status}: ${res.text}`);
    return res.body;
  }

  /**
   * Resolves with the first object of the collection matching `fieldSelector` for which `done` holds: the list
   * answers when it already does, otherwise a watch from the list's resourceVersion waits for the change.
   */
  async waitFor<T extends KubeObject>(collectionPath: string, fieldSelector: string, done: (obj: T) => boolean, timeoutMs: number): Promise<T> {
    const selector = `fieldSelector=${encodeURIComponent(fieldSelector)}`;
    const list = await this.get<KubeObject & { items: T[] }>(`${collectionPath}?${selector}`);
    const ready = list.items.find(done);
    if (ready) return ready;
    const path = `${collectionPath}?${selector}&watch=1&allowWatchBookmarks=false&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=${Math.ceil(timeoutMs / 1000)}`;
    return new Promise<T>((resolve, reject) => {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (this.credentials.token) headers.authorization = `Bearer ${this.credentials.token}`;
      const req = https.request({ host: this.url.hostname, port: this.url.port, method: 'GET', path, agent: this.agent, headers }, (res) => {
        let buffered = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          let newline: number;
          while ((newline = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, newline);
            buffered = buffered.slice(newline + 1);
            const event = JSON.parse(line) as { type: string; object: T };
            if ((event.type === 'ADDED' || event.type === 'MODIFIED') && done(event.object)) {
              resolve(event.object);
              req.destroy();
              return;
            }
          }
        });
        res.on('end', () => reject(new Error(`watch of ${collectionPath} (${fieldSelector}) ended after ${timeoutMs} ms without the awaited state`)));
      });
      req.on('error', reject);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
