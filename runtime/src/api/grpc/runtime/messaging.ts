/** PublishEvent, BulkPublishEvent (and its Alpha1 name) on `PublishApi`; InvokeBinding on `OutputBindingApi`. */
import type { BulkPublishRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/BulkPublishRequest.js';
import type { BulkPublishResponse } from '@svc/proto/gen/svc/proto/runtime/v1/BulkPublishResponse.js';
import type { InvokeBindingRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/InvokeBindingRequest.js';
import type { InvokeBindingResponse } from '@svc/proto/gen/svc/proto/runtime/v1/InvokeBindingResponse.js';
import type { PublishEventRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/PublishEventRequest.js';
import type { OutputBindingApi } from '../../../bindings/output-api.js';
import type { PublishApi } from '../../../pubsub/publish-api.js';
import { metadataValue, type Handler } from './handler.js';

export function messagingHandlers(publish: PublishApi, bindings: OutputBindingApi) {
  const bulkPublish: Handler<BulkPublishRequest__Output, BulkPublishResponse> = async (req) => {
    const entries = req.entries.map((e) => ({ entryId: e.entryId, data: e.event, contentType: e.contentType || undefined, metadata: e.metadata }));
    const result = await publish.bulkPublish(req.pubsubName, req.topic, entries, req.metadata);
    return { failedEntries: result.failedEntries };
  };
  return {
    PublishEvent: (async (req, call) => {
      const traceparent = metadataValue(call, 'traceparent');
      const tracestate = metadataValue(call, 'tracestate');
      await publish.publish(req.pubsubName, req.topic, {
        data: req.data,
        contentType: req.dataContentType || undefined,
        metadata: req.metadata,
        ...(traceparent ? { traceparent } : {}),
        ...(tracestate ? { tracestate } : {}),
      });
      return {};
    }) satisfies Handler<PublishEventRequest__Output, object>,
    BulkPublishEvent: bulkPublish,
    BulkPublishEventAlpha1: bulkPublish,
    InvokeBinding: (async (req) => {
      const res = await bindings.invoke(req.name, { operation: req.operation, data: req.data, metadata: req.metadata });
      return { data: res.data, metadata: { ...res.metadata } };
    }) satisfies Handler<InvokeBindingRequest__Output, InvokeBindingResponse>,
  };
}
