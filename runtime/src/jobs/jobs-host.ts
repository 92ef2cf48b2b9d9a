/**
 * The svcd part that owns the jobs: registers their actor type once the actor runtime runs (every replica does, so
 * whichever owns a job's partition fires it), and tells the jobs API where they live.
 */
import type { Registry } from 'prom-client';
import { INTERNAL_ACTOR_TYPE_PREFIX } from '../actors/public-actors.js';
import type { ActorRuntime } from '../actors/types.js';
import type { AppEvents } from '../app/app-events.js';
import type { Logger } from '../log/logger.js';
import type { Part } from '../util/lifecycle.js';
import { JobActor } from './job-actor.js';
import type { JobsPlace } from './jobs-api.js';
import { JobMetrics } from './metrics.js';

export interface JobsHostOptions {
  readonly appId: string;
  /** The actor runtime once the actor part started (undefined: no actor state store, no jobs). */
  readonly actorRuntime: () => ActorRuntime | undefined;
  /** The app channel; undefined when svcd has no app port (firings wait until one listens). */
  readonly app: AppEvents | undefined;
  /** How long the app may take to answer one firing. */
  readonly deliveryTimeoutMs: number;
  readonly metrics: Registry;
  readonly log: Logger;
}

/** An activation lives on only while it is busy: a job's state is read again at its next firing. */
const JOB_IDLE_TIMEOUT_MS = 5_000;

export class JobsHost implements Part, JobsPlace {
  readonly name = 'jobs';
  readonly actorType: string;
  readonly #metrics: JobMetrics;
  #runtime: ActorRuntime | undefined;

  constructor(private readonly opts: JobsHostOptions) {
    this.actorType = `${INTERNAL_ACTOR_TYPE_PREFIX}${opts.appId}.jobs`;
    this.#metrics = new JobMetrics(opts.metrics);
  }

  runtime(): ActorRuntime | undefined {
    return this.#runtime;
  }

  start(): Promise<void> {
    const runtime = this.opts.actorRuntime();
    if (!runtime) return Promise.resolve();
    const deps = { app: this.opts.app, deliveryTimeoutMs: this.opts.deliveryTimeoutMs, metrics: this.#metrics, log: this.opts.log.child({ part: 'jobs' }) };
    runtime.registerType(this.actorType, (id) => new JobActor(id, deps), { idleTimeoutMs: JOB_IDLE_TIMEOUT_MS });
    this.#runtime = runtime;
    return Promise.resolve();
  }

  stop(): Promise<void> {
    this.#runtime = undefined;
    return Promise.resolve();
  }
}
