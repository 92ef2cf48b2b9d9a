/**
 * Pub/sub spans as OpenTelemetry's messaging conventions name them: a PRODUCER span `publish {topic}` around a
 * publish, whose context the CloudEvent carries (`traceparent`, `tracestate`), and a CONSUMER span
 * `process {topic}` around a delivery, continuing the context the event carries: publisher and subscriber are one
 * trace across the broker.
 */
import type { Attributes } from '@opentelemetry/api';
import { contextFromHeaders } from './propagation.js';
import { SpanKind, type SpanSpec } from './spans.js';

export interface Destination {
  /** The component type, `pubsub.redis`: `messaging.system` is what follows the dot. */
  readonly componentType: string;
  readonly pubsubName: string;
  readonly topic: string;
}

function destinationAttributes(d: Destination): Attributes {
  const dot = d.componentType.indexOf('.');
  return { 'messaging.system': d.componentType.slice(dot + 1), 'messaging.destination.name': d.topic, 'svc.pubsub.name': d.pubsubName };
}

export function publishSpan(d: Destination, batchSize?: number): SpanSpec {
  return {
    name: `publish ${d.topic}`,
    kind: SpanKind.PRODUCER,
    attributes: {
      ...destinationAttributes(d),
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'publish',
      ...(batchSize === undefined ? {} : { 'messaging.batch.message_count': batchSize }),
    },
  };
}

export interface DeliveredEvent {
  readonly id: string;
  readonly traceparent?: unknown;
  readonly tracestate?: unknown;
}

/** The span of one event's delivery to the subscriber, a child of the publisher's context the event carries. */
export function processSpan(d: Destination, event: DeliveredEvent, consumerGroup: string): SpanSpec {
  const carried: Record<string, string> = {};
  if (typeof event.traceparent === 'string') carried.traceparent = event.traceparent;
  if (typeof event.tracestate === 'string') carried.tracestate = event.tracestate;
  return {
    name: `process ${d.topic}`,
    kind: SpanKind.CONSUMER,
    parent: contextFromHeaders(carried),
    attributes: {
      ...destinationAttributes(d),
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.message.id': event.id,
      'messaging.consumer.group.name': consumerGroup,
    },
  };
}
