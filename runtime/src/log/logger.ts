import { Writable } from 'node:stream';
import { trace } from '@opentelemetry/api';
import { pino, type Logger } from 'pino';
import { API_TOKEN_NAMES } from '../config/api-token.js';
import type { LogLevel } from '../config/config.js';

export type { Logger } from 'pino';

/** Keys that must never reach a log line, whatever a caller passes (no secret in logs). */
const REDACTED_PATHS = ['apiToken', '*.apiToken', 'token', 'password', '*.password', ...API_TOKEN_NAMES.map((name) => `headers["${name}"]`)];

/** Turns pino's JSON lines into `time LEVEL [scope] message key=value …` for people at a terminal. */
function readableStream(out: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line) continue;
        try {
          const { time, level, msg, scope, name: _n, pid: _p, hostname: _h, ...rest } = JSON.parse(line) as Record<string, unknown>;
          const fields = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
          const stamp = new Date(Number(time)).toISOString().slice(11, 23);
          const lvl = String(level).toUpperCase().padEnd(5);
          const text = (v: unknown) => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));
          out.write(`${stamp} ${lvl} ${scope ? `[${text(scope)}] ` : ''}${text(msg)}${fields.length ? '  ' + fields.join(' ') : ''}\n`);
        } catch {
          out.write(line + '\n');
        }
      }
      done();
    },
  });
}

/**
 * The trace of the request a line is written in (`trace_id`, `span_id`), read from the active span: lines of one
 * request are found from its trace and back. Nothing when svcd does not trace (no context is ever active then).
 */
function traceFields(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (span === undefined) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

export function createLogger(opts: { level: LogLevel; json: boolean; name?: string }): Logger {
  const options = {
    name: opts.name ?? 'svcd',
    level: opts.level,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    mixin: traceFields,
  };
  if (opts.json) return pino({ ...options, timestamp: pino.stdTimeFunctions.isoTime });
  return pino({ ...options, base: undefined }, readableStream(process.stdout));
}
