/** The jobs building block, free of any transport: the HTTP routes and the gRPC API call this. */
import type { ActorRuntime } from '../actors/types.js';
import { malformedRequest } from '../errors/catalogue.js';
import { RuntimeError } from '../errors/runtime-error.js';
import { decodeRecord, encodeRecord, type FailurePolicy, type Job } from './job.js';
import { JOB_STATE_KEY, type JobMethod } from './job-actor.js';
import { firstPoint } from './job-timing.js';

export interface ScheduleJobRequest {
  readonly job: Job;
  /** Replace a job of the same name; without it, an existing name is refused (409 / ALREADY_EXISTS). */
  readonly overwrite: boolean;
}

const MAX_NAME_LENGTH = 256;
/** Index pages read at once while listing or deleting by prefix. */
const PAGE = 256;

/** Where the jobs live: the actor runtime (absent without an actor state store) and the jobs' actor type. */
export interface JobsPlace {
  runtime(): ActorRuntime | undefined;
  readonly actorType: string;
}

export class JobsApi {
  constructor(
    private readonly place: JobsPlace,
    private readonly now: () => number = Date.now,
  ) {}

  async schedule(req: ScheduleJobRequest): Promise<void> {
    const { job } = req;
    checkName(job.name);
    if (job.failurePolicy) checkPolicy(job.name, job.failurePolicy);
    const createdAt = this.now();
    const at = firstPoint(job, createdAt);
    const method: JobMethod = req.overwrite ? 'replace' : 'create';
    await this.#runtime().invoke(this.place.actorType, job.name, method, encodeRecord({ job, createdAt, at, fired: 0, attempt: 0 }));
  }

  async get(name: string): Promise<Job> {
    checkName(name);
    const job = await this.#read(name);
    if (!job) throw new RuntimeError('DAPR_SCHEDULER_GET_JOB', `job ${name} not found`);
    return job;
  }

  async delete(name: string): Promise<void> {
    checkName(name);
    await this.#runtime().invoke(this.place.actorType, name, 'delete' satisfies JobMethod);
  }

  /** Every job of the app, in name order. */
  async list(): Promise<Job[]> {
    const jobs: Job[] = [];
    await this.#eachName('', async (names) => {
      for (const job of await Promise.all(names.map((n) => this.#read(n)))) if (job) jobs.push(job);
    });
    return jobs;
  }

  /** Deletes every job whose name starts with `prefix` (all of the app's with ''); answers how many there were. */
  async deleteByPrefix(prefix: string): Promise<number> {
    let deleted = 0;
    await this.#eachName(prefix, async (names) => {
      await Promise.all(names.map((n) => this.delete(n)));
      deleted += names.length;
    });
    return deleted;
  }

  /** Pages of the names starting with `prefix`, from the jobs' index (the job named `prefix` itself first). */
  async #eachName(prefix: string, page: (names: string[]) => Promise<void>): Promise<void> {
    const runtime = this.#runtime();
    if (prefix !== '' && (await this.#read(prefix))) await page([prefix]);
    for (let after: string | undefined = prefix === '' ? undefined : prefix; ; ) {
      const entries = await runtime.listIndex(this.place.actorType, { limit: PAGE, ...(after !== undefined && { after }) });
      const names = entries.map((e) => e.key).filter((k) => k.startsWith(prefix));
      if (names.length > 0) await page(names);
      if (entries.length < PAGE || names.length < entries.length) return;
      after = entries[entries.length - 1]!.key;
    }
  }

  async #read(name: string): Promise<Job | undefined> {
    const bytes = await this.#runtime().getState(this.place.actorType, name, JOB_STATE_KEY);
    return bytes && decodeRecord(bytes).job;
  }

  #runtime(): ActorRuntime {
    const runtime = this.place.runtime();
    if (!runtime) throw new RuntimeError('ERR_ACTOR_RUNTIME_NOT_FOUND', 'jobs are kept in the actor state store: configure a state store with metadata actorStateStore "true"');
    return runtime;
  }
}

function checkName(name: string): void {
  if (name === '') throw new RuntimeError('DAPR_SCHEDULER_JOB_NAME_EMPTY', 'the job name is empty');
  if (name.length > MAX_NAME_LENGTH) throw malformedRequest(`the job name is longer than ${MAX_NAME_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw malformedRequest('the job name holds control characters');
  // The store keys of a job's actor are separated by '||'.
  if (name.includes('||')) throw malformedRequest("the job name must not contain '||'");
}

function checkPolicy(name: string, policy: FailurePolicy): void {
  if (policy.kind !== 'constant') return;
  if (!Number.isFinite(policy.intervalMs) || policy.intervalMs < 0) throw new RuntimeError('DAPR_SCHEDULER_SCHEDULE_JOB', `job ${name}: the failure policy's interval must not be negative`);
  if (policy.maxRetries !== undefined && (!Number.isInteger(policy.maxRetries) || policy.maxRetries < 0)) {
    throw new RuntimeError('DAPR_SCHEDULER_SCHEDULE_JOB', `job ${name}: the failure policy's maxRetries must be a whole number ≥ 0`);
  }
}
