/** GetState, GetBulkState, SaveState, DeleteState, DeleteBulkState, ExecuteStateTransaction on `StateApi`. */
import type { StateItem__Output } from '@svc/proto/gen/svc/proto/common/v1/StateItem.js';
import type { StateOptions__Output } from '@svc/proto/gen/svc/proto/common/v1/StateOptions.js';
import type { DeleteBulkStateRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/DeleteBulkStateRequest.js';
import type { DeleteStateRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/DeleteStateRequest.js';
import type { ExecuteStateTransactionRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/ExecuteStateTransactionRequest.js';
import type { GetBulkStateRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/GetBulkStateRequest.js';
import type { GetBulkStateResponse } from '@svc/proto/gen/svc/proto/runtime/v1/GetBulkStateResponse.js';
import type { GetStateRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/GetStateRequest.js';
import type { GetStateResponse } from '@svc/proto/gen/svc/proto/runtime/v1/GetStateResponse.js';
import type { SaveStateRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/SaveStateRequest.js';
import type { DeleteStateInput, SaveStateItem, StateApi, StateOptionsInput } from '../../../state/state-api.js';
import type { Handler } from './handler.js';

const CONSISTENCY: Readonly<Record<string, string>> = { CONSISTENCY_EVENTUAL: 'eventual', CONSISTENCY_STRONG: 'strong' };
const CONCURRENCY: Readonly<Record<string, string>> = { CONCURRENCY_FIRST_WRITE: 'first-write', CONCURRENCY_LAST_WRITE: 'last-write' };

function options(o: StateOptions__Output | null): StateOptionsInput | undefined {
  if (!o) return undefined;
  return { concurrency: CONCURRENCY[o.concurrency], consistency: CONSISTENCY[o.consistency] };
}

/** An empty ETag is no ETag: clients fill the message in even when they have none. */
const etagOf = (item: { etag: { value: string } | null }): string | undefined => item.etag?.value || undefined;

const saveItem = (item: StateItem__Output): SaveStateItem => ({ key: item.key, value: item.value, etag: etagOf(item), metadata: item.metadata, options: options(item.options) });

const deleteItem = (item: StateItem__Output): DeleteStateInput => ({ key: item.key, etag: etagOf(item), metadata: item.metadata, options: options(item.options) });

export function stateHandlers(api: StateApi) {
  const empty = {};
  return {
    GetState: (async (req) => {
      const res = await api.get(req.storeName, req.key, { metadata: req.metadata, consistency: CONSISTENCY[req.consistency] });
      return { data: res?.data ?? Buffer.alloc(0), etag: res?.etag ?? '', metadata: res?.metadata ?? {} };
    }) satisfies Handler<GetStateRequest__Output, GetStateResponse>,
    GetBulkState: (async (req) => {
      const items = await api.bulkGet(req.storeName, req.keys, req.metadata);
      return { items: items.map((i) => ({ key: i.key, data: i.data ?? Buffer.alloc(0), etag: i.etag ?? '', error: i.error ?? '', metadata: i.metadata ?? {} })) };
    }) satisfies Handler<GetBulkStateRequest__Output, GetBulkStateResponse>,
    SaveState: (async (req) => {
      await api.save(req.storeName, req.states.map(saveItem));
      return empty;
    }) satisfies Handler<SaveStateRequest__Output, object>,
    DeleteState: (async (req) => {
      await api.delete(req.storeName, deleteItem({ key: req.key, etag: req.etag, metadata: req.metadata, options: req.options, value: Buffer.alloc(0) }));
      return empty;
    }) satisfies Handler<DeleteStateRequest__Output, object>,
    DeleteBulkState: (async (req) => {
      await api.bulkDelete(req.storeName, req.states.map(deleteItem));
      return empty;
    }) satisfies Handler<DeleteBulkStateRequest__Output, object>,
    ExecuteStateTransaction: (async (req) => {
      const ops = req.operations.map((op) => ({ operation: op.operationType, request: saveItem(op.request ?? { key: '', value: Buffer.alloc(0), etag: null, metadata: {}, options: null }) }));
      await api.transact(req.storeName, ops, req.metadata);
      return empty;
    }) satisfies Handler<ExecuteStateTransactionRequest__Output, object>,
  };
}
