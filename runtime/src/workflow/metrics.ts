import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Workflow metrics on the process registry (`svc_workflow_*`). */
export class WorkflowMetrics {
  readonly operations: Counter<'operation' | 'status'>;
  readonly turnLatency: Histogram;
  readonly activitiesExecuted: Counter<'result'>;
  readonly completed: Counter<'status'>;
  readonly timersFired: Counter;
  readonly connectedWorkers: Gauge;
  readonly staleAnswers: Counter<'kind' | 'reason'>;
  readonly refusedWork: Counter<'kind'>;
  readonly unresponsiveWorkers: Counter<'reason'>;

  constructor(registry: Registry) {
    this.operations = new Counter({
      name: 'svc_workflow_operations_total',
      help: 'Workflow management operations (start, get, raise_event, terminate, suspend, resume, purge, list, purge_filter) by outcome',
      labelNames: ['operation', 'status'],
      registers: [registry],
    });
    this.turnLatency = new Histogram({
      name: 'svc_workflow_turn_latency_seconds',
      help: 'Time from handing an orchestration work item to a worker until its result is recorded',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    this.activitiesExecuted = new Counter({
      name: 'svc_workflow_activities_executed_total',
      help: 'Activity results recorded in workflow history, by result (completed, failed, duplicate)',
      labelNames: ['result'],
      registers: [registry],
    });
    this.completed = new Counter({
      name: 'svc_workflow_instances_completed_total',
      help: 'Workflow instances that reached a terminal status',
      labelNames: ['status'],
      registers: [registry],
    });
    this.timersFired = new Counter({
      name: 'svc_workflow_timers_fired_total',
      help: 'Durable timers whose TimerFired is committed to their instance (once per timer)',
      registers: [registry],
    });
    this.connectedWorkers = new Gauge({
      name: 'svc_workflow_connected_workers',
      help: 'SDK workers connected through GetWorkItems',
      registers: [registry],
    });
    this.staleAnswers = new Counter({
      name: 'svc_workflow_stale_answers_total',
      help: 'Worker answers ignored because they answer no outstanding hand-out (reason: unknown, claimed, token, connection)',
      labelNames: ['kind', 'reason'],
      registers: [registry],
    });
    this.refusedWork = new Counter({
      name: 'svc_workflow_refused_work_total',
      help: 'Work items a worker answered "not registered" for and that went to another worker',
      labelNames: ['kind'],
      registers: [registry],
    });
    this.unresponsiveWorkers = new Counter({
      name: 'svc_workflow_unresponsive_workers_total',
      help: 'Workers found unresponsive (reason: task_timeout, an orchestration task unanswered past the workflow-task timeout; stream_blocked, a work item stream not read that long); their work went to other workers',
      labelNames: ['reason'],
      registers: [registry],
    });
  }
}
