/**
 * `TaskHubSidecarService` (Durable Task sidecar protocol) on the gRPC API port: the worker side (Hello,
 * GetWorkItems, Complete*Task) feeds the engine's `WorkerHub`, the client side calls `WorkflowEngine`.
 */
import * as grpc from '@grpc/grpc-js';
import type {
  ActivityResponse__Output,
  CreateInstanceRequest__Output,
  CreateInstanceResponse,
  GetInstanceHistoryRequest__Output,
  GetInstanceHistoryResponse,
  RerunWorkflowFromEventRequest__Output,
  RerunWorkflowFromEventResponse,
  GetInstanceRequest__Output,
  GetInstanceResponse,
  ListInstanceIDsRequest__Output,
  ListInstanceIDsResponse,
  OrchestratorResponse__Output,
  PurgeInstancesRequest__Output,
  PurgeInstancesResponse,
  RaiseEventRequest__Output,
  ResumeRequest__Output,
  SuspendRequest__Output,
  TerminateRequest__Output,
  WorkItem as WireWorkItem,
} from '@svc/proto';
import { loadDurableTaskProto, splitOrchestratorResponse, type EncodedActions } from '@svc/proto';
import { authorized as isAuthorized, UNAUTHENTICATED } from '../call-guard.js';
import { unary as sharedUnary, type UnaryBody } from '../unary.js';
import { isRuntimeError, ensureError } from '../../../errors/runtime-error.js';
import type { Logger } from '../../../log/logger.js';
import type { WorkerHub } from '../../../workflow/worker-hub.js';
import type { WorkerConnection } from '../../../workflow/work-items.js';
import type { WorkflowEngine, WorkflowInstance } from '../../../workflow/engine.js';
import { checkExistingInstanceId, checkNewInstanceId } from '../../../workflow/instance-id.js';
import { decodeWireActions, fromReusePolicy, fromTimestamp, fromWireFailure, fromWireTrace, nonEmptyText, text, encodeWorkItem, toWireEvent, toWireState } from './wire.js';
import { optional } from '../../../workflow/optional.js';
import { fromListRequest, fromPurgeFilter, toListResponse } from './instance-listing.js';
import { workflowNotFound } from '../../../errors/catalogue.js';

export interface DurableTaskServiceOptions {
  readonly engine: WorkflowEngine;
  /** The worker side; undefined while workflows are unavailable (no actor state store): workers are told so. */
  readonly hub: () => WorkerHub | undefined;
  readonly apiToken?: string;
  readonly log: Logger;
}

type Call = grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>;

/** A worker's orchestrator answer with its actions still encoded (decoded in slices by the handler). */
type SplitAnswer = Omit<OrchestratorResponse__Output, 'actions'> & { readonly encodedActions: EncodedActions };

/** The service definition and its implementation, ready for `GrpcApiServer.addService`. */
export function durableTaskService(opts: DurableTaskServiceOptions): { definition: grpc.ServiceDefinition; implementation: grpc.UntypedServiceImplementation } {
  const { engine, log } = opts;
  const proto = loadDurableTaskProto();
  // GetWorkItems writes work items already encoded (wire.ts `encodeWorkItem`): its serializer passes bytes through.
  // An orchestrator answer is decoded in two steps: its head at once, its actions in slices by the handler.
  const service = proto.service;
  const serializeWorkItem = service.GetWorkItems.responseSerialize as (wire: WireWorkItem) => Buffer;
  const deserializeAnswerHead = service.CompleteOrchestratorTask.requestDeserialize as (bytes: Buffer) => OrchestratorResponse__Output;
  const answerDeserializer = (bytes: Buffer): SplitAnswer => {
    const { head, actions } = splitOrchestratorResponse(bytes);
    return { ...deserializeAnswerHead(head), encodedActions: actions };
  };
  const definition: grpc.ServiceDefinition = {
    ...service,
    GetWorkItems: { ...service.GetWorkItems, responseSerialize: (value: Buffer | WireWorkItem) => (Buffer.isBuffer(value) ? value : serializeWorkItem(value)) },
    CompleteOrchestratorTask: { ...service.CompleteOrchestratorTask, requestDeserialize: answerDeserializer },
    CompleteWorkflowTask: { ...service.CompleteWorkflowTask, requestDeserialize: answerDeserializer },
  };
  let nextWorkerId = 1;

  const authorized = (call: Call): boolean => isAuthorized(call, opts.apiToken);

  const unary = <Req, Res>(method: string, body: UnaryBody<Req, Res>): grpc.handleUnaryCall<Req, Res> => sharedUnary(method, body, { apiToken: opts.apiToken, log });

  const existingId = (id: string): string => {
    checkExistingInstanceId(id);
    return id;
  };

  const instanceResponse = (i: WorkflowInstance | undefined, withPayloads: boolean): GetInstanceResponse =>
    i ? { exists: true, orchestrationState: toWireState(i, withPayloads) } : { exists: false };

  const implementation: grpc.UntypedServiceImplementation = {
    Hello: unary<unknown, object>('Hello', () => Promise.resolve({})),

    // Instance IDs follow the HTTP API's rules on every RPC (workflow-ids in docs/workflows.md).
    StartInstance: unary<CreateInstanceRequest__Output, CreateInstanceResponse>('StartInstance', async (req) => {
      if (req.instanceId !== '') checkNewInstanceId(req.instanceId);
      const scheduled = fromTimestamp(req.scheduledStartTimestamp);
      const reuse = fromReusePolicy(req.orchestrationIdReusePolicy, req.enforceUniqueInstanceId);
      const instanceId = await engine.start({
        name: req.name,
        instanceId: req.instanceId,
        ...optional('input', nonEmptyText(req.input)),
        ...(scheduled ? { scheduledStartTime: new Date(scheduled) } : {}),
        ...(reuse ? { reuse } : {}),
        ...optional('parentTrace', fromWireTrace(req.parentTraceContext)),
      });
      return { instanceId };
    }),

    GetInstance: unary<GetInstanceRequest__Output, GetInstanceResponse>('GetInstance', async (req) =>
      instanceResponse(await engine.get(existingId(req.instanceId)), req.getInputsAndOutputs),
    ),

    GetInstanceHistory: unary<GetInstanceHistoryRequest__Output, GetInstanceHistoryResponse>('GetInstanceHistory', async (req) => {
      const events = await engine.history(existingId(req.instanceId));
      if (!events) throw workflowNotFound(req.instanceId);
      return { events: events.map(toWireEvent) };
    }),

    RerunWorkflowFromEvent: unary<RerunWorkflowFromEventRequest__Output, RerunWorkflowFromEventResponse>('RerunWorkflowFromEvent', async (req) => {
      const newInstanceId = req.newInstanceID ?? '';
      if (newInstanceId !== '') checkNewInstanceId(newInstanceId);
      const newChild = req.newChildWorkflowInstanceID ?? '';
      if (newChild !== '') checkExistingInstanceId(newChild);
      const id = await engine.rerunFromEvent({
        sourceInstanceId: existingId(req.sourceInstanceID),
        eventId: req.eventID,
        ...(newInstanceId !== '' ? { newInstanceId } : {}),
        ...(newChild !== '' ? { newChildInstanceId: newChild } : {}),
        ...(req.overwriteInput ? { overwriteInput: true, ...optional('input', text(req.input)) } : {}),
      });
      return { newInstanceID: id };
    }),

    WaitForInstanceStart: unary<GetInstanceRequest__Output, GetInstanceResponse>('WaitForInstanceStart', async (req, cancelled) =>
      instanceResponse(await engine.waitFor(existingId(req.instanceId), 'started', cancelled()), req.getInputsAndOutputs),
    ),

    WaitForInstanceCompletion: unary<GetInstanceRequest__Output, GetInstanceResponse>('WaitForInstanceCompletion', async (req, cancelled) =>
      instanceResponse(await engine.waitFor(existingId(req.instanceId), 'completed', cancelled()), req.getInputsAndOutputs),
    ),

    RaiseEvent: unary<RaiseEventRequest__Output, object>('RaiseEvent', async (req) => {
      await engine.raiseEvent(existingId(req.instanceId), req.name, text(req.input));
      return {};
    }),

    // Terminate, suspend and resume answer once the instance shows the new status, as the SDKs expect.
    TerminateInstance: unary<TerminateRequest__Output, object>('TerminateInstance', async (req, cancelled) => {
      await engine.terminate(existingId(req.instanceId), { ...optional('output', text(req.output)), recursive: req.recursive });
      await engine.waitFor(req.instanceId, 'completed', cancelled());
      return {};
    }),

    SuspendInstance: unary<SuspendRequest__Output, object>('SuspendInstance', async (req, cancelled) => {
      await engine.suspend(existingId(req.instanceId), nonEmptyText(req.reason));
      await engine.waitFor(req.instanceId, 'suspended', cancelled());
      return {};
    }),

    ResumeInstance: unary<ResumeRequest__Output, object>('ResumeInstance', async (req, cancelled) => {
      await engine.resume(existingId(req.instanceId), nonEmptyText(req.reason));
      await engine.waitFor(req.instanceId, 'resumed', cancelled());
      return {};
    }),

    PurgeInstances: unary<PurgeInstancesRequest__Output, PurgeInstancesResponse>('PurgeInstances', async (req) => {
      if (req.request === 'purgeInstanceFilter' && req.purgeInstanceFilter) {
        return { deletedInstanceCount: await engine.purgeWhere(fromPurgeFilter(req.purgeInstanceFilter), { recursive: req.recursive }) };
      }
      try {
        return { deletedInstanceCount: await engine.purge(existingId(req.instanceId ?? ''), { recursive: req.recursive }) };
      } catch (err) {
        if (isRuntimeError(err, 'ERR_INSTANCE_ID_NOT_FOUND')) return { deletedInstanceCount: 0 };
        throw err;
      }
    }),

    ListInstanceIDs: unary<ListInstanceIDsRequest__Output, ListInstanceIDsResponse>('ListInstanceIDs', async (req) =>
      toListResponse(await engine.listInstanceIds(fromListRequest(req))),
    ),

    GetWorkItems: (call: grpc.ServerWritableStream<unknown, unknown>) => {
      if (!authorized(call)) {
        call.emit('error', UNAUTHENTICATED);
        return;
      }
      const hub = opts.hub();
      if (!hub) {
        call.emit('error', { code: grpc.status.FAILED_PRECONDITION, details: 'workflows are unavailable: no actor state store is configured' });
        return;
      }
      let open = true;
      let blocked = false;
      const worker: WorkerConnection = {
        id: nextWorkerId++,
        peer: call.getPeer(),
        send: (item, completionToken) => {
          if (!open) return false;
          // Written once encoded (a large history is encoded in slices); a stream closed meanwhile gets nothing:
          // its disconnect already handed the item out again.
          encodeWorkItem(item, completionToken, serializeWorkItem).then(
            (bytes) => {
              if (!open || call.write(bytes) || blocked) return;
              // The worker is not reading: flow control holds what is written. Blocked too long, it is unresponsive.
              blocked = true;
              hub.writeBlocked(worker);
              call.once('drain', () => {
                blocked = false;
                hub.writeDrained(worker);
              });
            },
            (err: unknown) => log.error({ instanceId: item.instanceId, err: ensureError(err).message }, 'encoding a work item failed'),
          );
          return true;
        },
        close: () => {
          if (!open) return;
          open = false;
          call.end();
        },
      };
      const gone = () => {
        if (!open) return;
        open = false;
        hub.disconnect(worker);
        log.info({ worker: worker.id, workers: hub.workerCount }, 'workflow worker disconnected');
      };
      call.on('cancelled', gone);
      call.on('close', gone);
      call.on('error', gone);
      log.info({ worker: worker.id, userAgent: call.metadata.get('user-agent')[0]?.toString() }, 'workflow worker connected');
      hub.connect(worker);
    },

    CompleteOrchestratorTask: completeOrchestrator('CompleteOrchestratorTask'),
    CompleteWorkflowTask: completeOrchestrator('CompleteWorkflowTask'),

    CompleteActivityTask: unary<ActivityResponse__Output, object>('CompleteActivityTask', async (req, _cancelled, call) => {
      const hub = opts.hub();
      if (!hub) return {};
      const failureDetails = fromWireFailure(req.failureDetails);
      const outcome = failureDetails ? { failureDetails } : optional('result', nonEmptyText(req.result));
      await hub.completeActivity(req.instanceId, req.taskId, outcome, { token: req.completionToken, peer: call.getPeer() });
      return {};
    }),
  };

  function completeOrchestrator(name: string) {
    return unary<SplitAnswer, object>(name, async (req, _cancelled, call) => {
      const origin = { token: req.completionToken, peer: call.getPeer() };
      const actions = await decodeWireActions(req.encodedActions);
      await opts.hub()?.completeOrchestration(req.instanceId, actions, text(req.customStatus), origin);
      return {};
    });
  }

  return { definition, implementation };
}

