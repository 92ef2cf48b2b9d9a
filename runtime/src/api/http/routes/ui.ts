import type Router from '@koa/router';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { RuntimeError } from '../../../errors/runtime-error.js';
import type { HttpRouteGroup } from '../app.js';

interface Asset {
  readonly body: Buffer;
  readonly type: string;
  readonly etag: string;
}

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

/** Same origin only, nothing inline, no framing: the page holds an API token. */
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** The `@svc/ui` package's folder, refused when its files are not built: svcd says so at start, not on the first page. */
function builtUiRoot(): string {
  const root = path.dirname(createRequire(import.meta.url).resolve('@svc/ui/package.json'));
  if (!existsSync(path.join(root, 'static', 'index.html')) || !existsSync(path.join(root, 'dist', 'src', 'main.js'))) {
    throw new Error(`the web UI is not built under ${root}: run npm run build`);
  }
  return root;
}

/**
 * The UI's files (static HTML/CSS and the compiled modules), read into memory on the first page asked for: some
 * 50 KB, served with no disk read and no CDN. (Read at start, they were a twentieth of svcd's start-up.)
 */
function loadAssets(root: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const folder of [path.join(root, 'static'), path.join(root, 'dist', 'src')]) {
    for (const name of readdirSync(folder)) {
      const type = TYPES[path.extname(name)];
      if (type === undefined) continue;
      const body = readFileSync(path.join(folder, name));
      assets.set(name, { body, type, etag: `"${createHash('sha1').update(body).digest('base64url')}"` });
    }
  }
  return assets;
}

/**
 * The web UI at `/ui/` (`--enable-ui`). Its files are public, like health: the page itself holds no data and asks
 * for the API token when the API answers 401; every API call it makes is checked as any other.
 */
export function uiRoutes(): HttpRouteGroup {
  const root = builtUiRoot();
  let assets: Map<string, Asset> | undefined;
  return {
    public: true,
    mount(router: Router) {
      // One handler: the router matches '/ui' and '/ui/' alike (trailing slashes are not strict).
      router.get(['/ui', '/ui/{:file}'], (ctx) => {
        if (ctx.path === '/ui') {
          ctx.status = 301;
          ctx.redirect('/ui/');
          return;
        }
        const name = (ctx.params as { file?: string }).file ?? 'index.html';
        const asset = (assets ??= loadAssets(root)).get(name);
        if (!asset) throw new RuntimeError('ERR_NOT_FOUND', `no UI file ${name}`);
        ctx.set(SECURITY_HEADERS);
        ctx.set('cache-control', 'no-cache');
        ctx.type = asset.type;
        ctx.etag = asset.etag;
        ctx.status = 200;
        if (ctx.fresh) {
          ctx.status = 304;
          return;
        }
        ctx.body = asset.body;
      });
    },
  };
}
