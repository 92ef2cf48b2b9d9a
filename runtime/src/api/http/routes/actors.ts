import type Router from '@koa/router';
import type { RouterContext } from '@koa/router';
import { formatGoDuration } from '../../../actors/durations.js';
import type { PublicActorApi } from '../../../actors/public-actors.js';
import type { ReminderInfo } from '../../../actors/types.js';
import { RuntimeError } from '../../../errors/runtime-error.js';
import type { HttpRouteGroup } from '../app.js';
import { decodeActorStateTransaction, decodeReminderBody, decodeTimerBody } from '../actor-body.js';
import { readRawBody } from '../body.js';
import { setJsonType } from '../json-answer.js';

function reminderJson(r: ReminderInfo): string {
  const parts = [
    `"actorType":${JSON.stringify(r.actorType)}`,
    `"actorId":${JSON.stringify(r.actorId)}`,
    `"name":${JSON.stringify(r.name)}`,
    `"dueTime":${JSON.stringify(r.dueTimeText ?? new Date(r.dueAt).toISOString())}`,
    `"nextFireTime":${JSON.stringify(new Date(r.dueAt).toISOString())}`,
    `"period":${JSON.stringify(r.periodText ?? (r.periodMs !== undefined ? formatGoDuration(r.periodMs) : ''))}`,
  ];
  if (r.expiresAt !== undefined) parts.push(`"expirationTime":${JSON.stringify(new Date(r.expiresAt).toISOString())}`);
  if (r.data !== undefined) parts.push(`"data":${r.data.toString('utf8')}`);
  return `{${parts.join(',')}}`;
}

/**
 * `/v1.0/actors/<type>/<id>/…`: method invocation, state, reminders and timers, as Dapr's actor API.
 * `runtime()` throws ERR_ACTOR_RUNTIME_NOT_FOUND when no actor state store is configured; it reaches only the
 * actor types the app hosts (`PublicActors`).
 */
export function actorRoutes(runtime: () => PublicActorApi, maxBodyBytes: number): HttpRouteGroup {
  return {
    mount(router: Router) {
      const base = '/v1.0/actors/:type/:id';
      const p = (ctx: RouterContext) => ({ type: ctx.params.type!, id: ctx.params.id! });

      const invoke = async (ctx: RouterContext) => {
        const rt = runtime();
        const { type, id } = p(ctx);
        const data = await readRawBody(ctx, maxBodyBytes);
        const result = await rt.invoke(type, id, ctx.params.method!, data.length > 0 ? data : undefined);
        ctx.status = 200;
        setJsonType(ctx);
        ctx.body = result ?? Buffer.alloc(0);
      };
      for (const verb of ['get', 'post', 'put', 'delete'] as const) router[verb](`${base}/method/:method`, invoke);

      router.get(`${base}/state/:key`, async (ctx) => {
        const rt = runtime();
        const { type, id } = p(ctx);
        const value = await rt.getState(type, id, ctx.params.key!);
        if (value === undefined) {
          ctx.status = 204;
          return;
        }
        setJsonType(ctx);
        ctx.body = value;
      });

      const transaction = async (ctx: RouterContext) => {
        const rt = runtime();
        const { type, id } = p(ctx);
        const ops = decodeActorStateTransaction(await readRawBody(ctx, maxBodyBytes));
        await rt.applyState(type, id, ops);
        ctx.status = 204;
      };
      router.post(`${base}/state`, transaction);
      router.put(`${base}/state`, transaction);

      const createReminder = async (ctx: RouterContext) => {
        const rt = runtime();
        const { type, id } = p(ctx);
        const opts = decodeReminderBody(await readRawBody(ctx, maxBodyBytes), Date.now());
        await rt.createReminder(type, id, ctx.params.name!, opts);
        ctx.status = 204;
      };
      router.post(`${base}/reminders/:name`, createReminder);
      router.put(`${base}/reminders/:name`, createReminder);
      router.get(`${base}/reminders/:name`, async (ctx) => {
        const rt = runtime();
        const { type, id } = p(ctx);
        const r = await rt.getReminder(type, id, ctx.params.name!);
        if (!r) throw new RuntimeError('ERR_ACTOR_REMINDER_NON_EXISTENT', `reminder ${ctx.params.name} of actor ${type}/${id} does not exist`);
        setJsonType(ctx);
        ctx.body = reminderJson(r);
      });
      router.delete(`${base}/reminders/:name`, async (ctx) => {
        const rt = runtime();
        const { type, id } = p(ctx);
        await rt.deleteReminder(type, id, ctx.params.name!);
        ctx.status = 204;
      });

      const createTimer = async (ctx: RouterContext) => {
        const rt = runtime();
        const { type, id } = p(ctx);
        const opts = decodeTimerBody(await readRawBody(ctx, maxBodyBytes), Date.now());
        await rt.createTimer(type, id, ctx.params.name!, opts);
        ctx.status = 204;
      };
      router.post(`${base}/timers/:name`, createTimer);
      router.put(`${base}/timers/:name`, createTimer);
      router.delete(`${base}/timers/:name`, async (ctx) => {
        const rt = runtime();
        const { type, id } = p(ctx);
        await rt.deleteTimer(type, id, ctx.params.name!);
        ctx.status = 204;
      });
    },
  };
}
