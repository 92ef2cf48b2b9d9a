import type Router from '@koa/router';
import { RuntimeError } from '../../../errors/runtime-error.js';
import type { HttpRouteGroup } from '../app.js';

export interface HealthSource {
  /** True once every part has started; false again while stopping. */
  ready(): boolean;
  /** Problems with outbound dependencies (components), empty when all are healthy. */
  outboundProblems(): Promise<string[]>;
}

/** `/v1.0/healthz` (204 ready, 500 before) and `/v1.0/healthz/outbound`; served without the API token. */
export function healthRoutes(health: HealthSource): HttpRouteGroup {
  return {
    public: true,
    mount(router: Router) {
      router.get('/v1.0/healthz', (ctx) => {
        if (!health.ready()) throw new RuntimeError('ERR_HEALTH_NOT_READY', 'svcd is not ready');
        ctx.status = 204;
      });
      router.get('/v1.0/healthz/outbound', async (ctx) => {
        const problems = await health.outboundProblems();
        if (problems.length > 0) throw new RuntimeError('ERR_OUTBOUND_HEALTH_NOT_READY', `outbound dependencies are not healthy: ${problems.join('; ')}`);
        ctx.status = 204;
      });
    },
  };
}
