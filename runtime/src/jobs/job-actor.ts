/**
 * One job as an internal actor (its id is the job's name): its record in the actor's state, one reminder at its
 * next point, and an index entry so the app's jobs can be listed. Living on the actor store, jobs are owned per
 * partition across replicas as reminders are, and a fire is a turn: the app is handed the firing inside it and the
 * next point is committed after, so a crash in between hands the same firing again (at least once).
 */
import type { AppEvents } from '../app/app-events.js';
import type { Actor, ActorContext } from '../actors/types.js';
import { RuntimeError } from '../errors/runtime-error.js';
import type { Logger } from '../log/logger.js';
import { DEFAULT_FAILURE_POLICY, decodeRecord, encodeRecord, type JobRecord } from './job.js';
import { isExpired, nextPoint } from './job-timing.js';
import type { JobMetrics } from './metrics.js';

export const JOB_STATE_KEY = 'job';
const FIRE = 'fire';
/** An app not listening yet never saw the firing: tried again this often, without using up the failure policy. */
const UNREACHABLE_RETRY_MS = 1000;
const INDEX_VALUE = Buffer.from('1');

export type JobMethod = 'create' | 'replace' | 'delete';

export interface JobActorDeps {
  /** The app channel; undefined when svcd has no app port. */
  readonly app: Pick<AppEvents, 'deliverJob'> | undefined;
  readonly deliveryTimeoutMs: number;
  readonly metrics: JobMetrics;
  readonly log: Logger;
}

export class JobActor implements Actor {
  constructor(
    private readonly name: string,
    private readonly deps: JobActorDeps,
  ) {}

  async invoke(method: string, data: Buffer | undefined, ctx: ActorContext): Promise<Buffer | undefined> {
    // A replace writes whatever is there: only create (refusing a taken name) and delete (nothing to do) need to look.
    const existing = method === 'replace' ? undefined : await ctx.state.get(JOB_STATE_KEY);
    if (method === 'delete') {
      if (existing) this.#finish(ctx);
      ctx.deactivateWhenIdle();
      return undefined;
    }
    if (method !== 'create' && method !== 'replace') throw new RuntimeError('ERR_ACTOR_INVOKE_METHOD', `jobs have no method ${method}`);
    if (existing && method === 'create') throw new RuntimeError('DAPR_SCHEDULER_JOB_EXISTS', `job ${this.name} already exists: schedule it with overwrite to replace it`);
    const record = decodeRecord(data!);
    this.#write(ctx, record);
    ctx.setIndexEntry(this.name, INDEX_VALUE);
    ctx.deactivateWhenIdle();
    return undefined;
  }

  async onReminder(name: string, _data: Buffer | undefined, ctx: ActorContext): Promise<void> {
    if (name !== FIRE) return;
    const bytes = await ctx.state.get(JOB_STATE_KEY);
    if (!bytes) return; // deleted in the same breath: the acknowledgement removes the reminder
    const r = decodeRecord(bytes);
    const now = ctx.clock.now();
    if (isExpired(r.job, r.createdAt, now)) return this.#finish(ctx);
    const result = this.deps.app ? await this.deps.app.deliverJob(this.name, r.job.data, this.deps.deliveryTimeoutMs) : { outcome: 'unreachable' as const, reason: 'svcd has no app port' };
    if (result.outcome === 'taken') {
      this.deps.metrics.attempts.inc({ outcome: 'taken' });
      this.deps.metrics.lag.observe(Math.max(0, ctx.clock.now() - r.at) / 1000);
      return this.#advance(ctx, r, now);
    }
    if (result.outcome === 'unreachable') {
      this.deps.metrics.attempts.inc({ outcome: 'unreachable' });
      this.deps.log.warn({ job: this.name, reason: result.reason, retryInMs: UNREACHABLE_RETRY_MS }, 'job firing not delivered: the app is not reachable');
      ctx.createReminder(FIRE, { dueAt: now + UNREACHABLE_RETRY_MS });
      return;
    }
    const policy = r.job.failurePolicy ?? DEFAULT_FAILURE_POLICY;
    if (policy.kind === 'constant' && (policy.maxRetries === undefined || r.attempt < policy.maxRetries)) {
      this.deps.metrics.attempts.inc({ outcome: 'failed' });
      this.deps.log.warn({ job: this.name, attempt: r.attempt + 1, reason: result.reason, retryInMs: policy.intervalMs }, 'job firing failed; retrying');
      const retry = { ...r, attempt: r.attempt + 1 };
      ctx.state.set(JOB_STATE_KEY, encodeRecord(retry));
      ctx.createReminder(FIRE, { dueAt: now + policy.intervalMs });
      return;
    }
    this.deps.metrics.attempts.inc({ outcome: 'dropped' });
    this.deps.log.warn({ job: this.name, attempts: r.attempt + 1, reason: result.reason, policy: policy.kind }, 'job firing failed; given up by its failure policy');
    this.#advance(ctx, r, now);
  }

  /** The firing of `r.at` is done with: on to the next point, or the job is over. */
  #advance(ctx: ActorContext, r: JobRecord, now: number): void {
    const fired = r.fired + 1;
    const next = nextPoint(r.job, r.createdAt, r.at, fired, now);
    if (next === undefined) return this.#finish(ctx);
    this.#write(ctx, { ...r, at: next, fired, attempt: 0 });
    ctx.deactivateWhenIdle(); // thousands of waiting jobs keep nothing in memory but their reminders
  }

  #write(ctx: ActorContext, r: JobRecord): void {
    ctx.state.set(JOB_STATE_KEY, encodeRecord(r));
    ctx.createReminder(FIRE, { dueAt: r.at });
  }

  #finish(ctx: ActorContext): void {
    ctx.state.delete(JOB_STATE_KEY);
    ctx.setIndexEntry(this.name, null);
    ctx.deleteReminder(FIRE);
    ctx.deactivateWhenIdle();
  }
}
