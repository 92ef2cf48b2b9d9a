import type pg from 'pg';
import { RuntimeError } from '../errors/runtime-error.js';

/** Where and how to connect, as the pg client takes it; the connect timeout is kept apart (the store bounds it). */
export interface PgConnection {
  readonly client: pg.ClientConfig;
  /** From `connect_timeout` (libpq: seconds) when the string sets it. */
  readonly connectTimeoutMs?: number;
}

function invalid(problem: string): never {
  throw new RuntimeError('ERR_COMPONENT_SPEC_INVALID', `metadata connectionString: ${problem}`);
}

/**
 * libpq `sslmode` → pg's `ssl`. pg cannot fall back from TLS to plain as libpq's `allow`/`prefer` do, so those
 * connect without TLS (what libpq ends with against a server without TLS); `require` encrypts without checking the
 * certificate, `verify-ca` checks the chain but not the host name, `verify-full` checks both.
 */
const SSL_MODES: Record<string, pg.ClientConfig['ssl']> = {
  disable: false,
  allow: false,
  prefer: false,
  require: { rejectUnauthorized: false },
  'verify-ca': { checkServerIdentity: () => undefined },
  'verify-full': true,
};

function positiveInteger(key: string, value: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 0 || n > max) invalid(`${key} '${value}' must be a number${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''}`);
  return n;
}

/** Each supported libpq keyword and where it goes. */
const KEYWORDS: Record<string, (value: string, out: { client: pg.ClientConfig; connectTimeoutMs?: number }) => void> = {
  host: (v, o) => void (o.client.host = v),
  port: (v, o) => void (o.client.port = positiveInteger('port', v, 65535)),
  user: (v, o) => void (o.client.user = v),
  password: (v, o) => void (o.client.password = v),
  dbname: (v, o) => void (o.client.database = v),
  // pgx's name for dbname, in the form the anchor system documents for its PostgreSQL components.
  database: (v, o) => void (o.client.database = v),
  // libpq's numeric address; pg connects to an IP given as host alike.
  hostaddr: (v, o) => void (o.client.host = v),
  application_name: (v, o) => void (o.client.application_name = v),
  sslmode: (v, o) => {
    if (!(v in SSL_MODES)) invalid(`sslmode '${v}' must be one of ${Object.keys(SSL_MODES).join(', ')}`);
    o.client.ssl = SSL_MODES[v];
  },
  // libpq: 0 (or unset) waits forever; below 2 s it waits 2 s.
  connect_timeout: (v, o) => {
    const seconds = positiveInteger('connect_timeout', v);
    if (seconds > 0) o.connectTimeoutMs = Math.max(seconds, 2) * 1000;
  },
};

/**
 * Splits a libpq keyword/value string (`host=db port=5432 password='it\\'s a secret'`: values may be single-quoted,
 * and a backslash takes the next character literally, quoted or not) into its pairs, in order.
 */
function keywordValuePairs(text: string): [string, string][] {
  const pairs: [string, string][] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  for (skipSpace(); i < text.length; skipSpace()) {
    const keyStart = i;
    while (i < text.length && text[i] !== '=' && !/\s/.test(text[i]!)) i++;
    const key = text.slice(keyStart, i);
    skipSpace();
    if (text[i] !== '=') invalid(`missing '=' after '${key}' (expected key=value pairs or a postgres:// URL)`);
    i++;
    skipSpace();
    let value = '';
    const quoted = text[i] === "'";
    if (quoted) i++;
    for (;;) {
      if (i >= text.length) {
        if (quoted) invalid(`unterminated quoted value for '${key}'`);
        break;
      }
      const c = text[i]!;
      if (quoted ? c === "'" : /\s/.test(c)) {
        if (quoted) i++;
        break;
      }
      if (c === '\\' && i + 1 < text.length) i++;
      value += text[i];
      i++;
    }
    pairs.push([key, value]);
  }
  return pairs;
}

/** Accepts a `postgres://`/`postgresql://` URL (as pg parses it) or a libpq keyword/value string. */
export function parsePgConnection(connectionString: string): PgConnection {
  if (/^postgres(?:ql)?:\/\//i.test(connectionString)) return { client: { connectionString } };
  const out: { client: pg.ClientConfig; connectTimeoutMs?: number } = { client: {} };
  for (const [key, value] of keywordValuePairs(connectionString)) {
    const apply = KEYWORDS[key];
    if (!apply) invalid(`unknown key '${key}' (supported: ${Object.keys(KEYWORDS).join(', ')}; or use a postgres:// URL)`);
    apply(value, out);
  }
  return out;
}
