/**
 * The CLI's client of a running svcd's HTTP API: `--http-port` (or SVC_HTTP_PORT, default 3500) on 127.0.0.1,
 * the API token from SVC_API_TOKEN. Failures become `CliError`s that say what to do.
 */
export class CliError extends Error {
  override readonly name = 'CliError';

  constructor(
    message: string,
    /** svcd's error code, when svcd answered with one. */
    readonly code?: string,
  ) {
    super(message);
  }
}

interface ErrorBody {
  errorCode?: string;
  message?: string;
}

/** What to do about an error code, beside svcd's own message. */
const HINTS: Record<string, string> = {
  ERR_UNAUTHORIZED: 'this svcd asks for an API token: set SVC_API_TOKEN to it',
  ERR_INSTANCE_ID_NOT_FOUND: '`svc workflow list` shows the instances that exist',
  ERR_ACTOR_RUNTIME_NOT_FOUND: 'svcd has no actor state store: `svc init` writes one (SQLite) into the resources folder',
  ERR_PURGE_WORKFLOW_NOT_COMPLETED: 'terminate it first: `svc workflow terminate <id>`',
  ERR_WORKFLOW_ALREADY_EXISTS: 'choose another --id, or terminate and purge the running one',
};

export class SvcdClient {
  readonly baseUrl: string;

  constructor(
    httpPort: number,
    private readonly token = process.env.SVC_API_TOKEN,
  ) {
    this.baseUrl = `http://127.0.0.1:${httpPort}`;
  }

  async call<T>(method: string, path: string, body?: string): Promise<T> {
    const headers: Record<string, string> = {};
    if (this.token) headers['svc-api-token'] = this.token;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(this.baseUrl + path, { method, headers, ...(body !== undefined ? { body } : {}) });
    } catch {
      throw new CliError(`cannot reach svcd at ${this.baseUrl}: is it running? Start it with \`make run\` or \`svc run --app-id <id> -- <app>\`, or pass its --http-port`);
    }
    const text = await res.text();
    if (!res.ok) {
      let err: ErrorBody = {};
      try {
        err = JSON.parse(text) as ErrorBody;
      } catch {
        // not svcd's error shape
      }
      const code = err.errorCode ?? `HTTP ${res.status}`;
      const hint = err.errorCode !== undefined ? HINTS[err.errorCode] : undefined;
      throw new CliError(`${code}: ${err.message ?? (text || res.statusText)}${hint ? `\n  hint: ${hint}` : ''}`, err.errorCode);
    }
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }
}
