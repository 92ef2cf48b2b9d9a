import type Router from '@koa/router';
import { RuntimeError } from '../../../errors/runtime-error.js';
import type { HttpRouteGroup } from '../app.js';
import type { Answer } from '../fast-routes.js';

export interface HealthSource {
  /** True once every part has started; false again while stopping. */
  ready(): boolean;
  /** Problems with outbound dependencies (components), empty when all are healthy. */
  outboundProblems(): Promise<string[]>;
}

const HEALTHZ = '/v1.0/healthz';

/**
 * `/v1.0/healthz` (204 ready, 500 before) and `/v1.0/healthz/outbound`; served without the API token. The probe is
 * also a fast route, answered before koa: svcd turns healthy before it loads koa (app.ts).
 */
export function healthRoutes(health: HealthSource): HttpRouteGroup {
  const healthz = (): Promise<Answer> =>
    health.ready() ? Promise.resolve({ status: 204 }) : Promise.reject(new RuntimeError('ERR_HEALTH_NOT_READY', 'svcd is not ready'));
  return {
    public: true,
    fast: [{ method: 'GET', pattern: HEALTHZ, answer: healthz }],
    mount(router: Router) {
      router.get(HEALTHZ, async (ctx) => {
        ctx.status = (await healthz()).status;
      });
      router.get(`${HEALTHZ}/outbound`, async (ctx) => {
        const problems = await health.outboundProblems();
        if (problems.length > 0) throw new RuntimeError('ERR_OUTBOUND_HEALTH_NOT_READY', `outbound dependencies are not healthy: ${problems.join('; ')}`);
        ctx.status = 204;
      });
    },
  };
}
