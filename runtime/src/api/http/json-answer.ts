import { JSON_TYPE } from './fast-routes.js';

/** What the helpers need of a koa context. */
interface Answerable {
  set(field: string, value: string): void;
  body: unknown;
}

/**
 * Marks the answer as JSON by its header. Koa's `ctx.type` setter resolves the type through mime-types, whose
 * first use loads all of mime-db: 8–15 ms on svcd's first answer.
 */
export function setJsonType(ctx: Answerable): void {
  ctx.set('Content-Type', JSON_TYPE);
}

/**
 * Answers `value` as JSON, serialized here rather than by koa. Koa tests an object body against the fetch API's
 * `Response`, and the first use of that global loads Node's fetch implementation: on svcd's first JSON answer
 * that took 36–70 ms and added 5–8 MiB of RSS for the rest of its life. A string body skips the test. `value` is an
 * object: a string that is already JSON goes as the body, after `setJsonType`.
 */
export function answerJson(ctx: Answerable, value: object): void {
  setJsonType(ctx);
  ctx.body = JSON.stringify(value);
}
