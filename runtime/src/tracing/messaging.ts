/**
 * Pub/sub spans as OpenTelemetry's messaging conventions name them: a PRODUCER span `publish {topic}` around a
 * publish, whose context the CloudEvent carries (`traceparent`, `tracestate`), and a CONSUMER span
 * `process {topic}` around a delivery, continuing the context the event carries: publisher and subscriber are one
 * trace across the broker. A batch (bulk subscription) is a `process` span of its own linked to each publisher's.
 */
import { trace, type Attributes, type Link } from '@opentelemetry/api';
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

function carriedContext(event: DeliveredEvent) {
  const carried: Record<string, string> = {};
  if (typeof event.traceparent === 'string') carried.traceparent = event.traceparent;
  if (typeof event.tracestate === 'string') carried.tracestate = event.tracestate;
  return contextFromHeaders(carried);
}

/**
 * The span of a batch's delivery (a bulk subscription): a trace of its own, linked to the publisher's context of
 * each event in it, as the conventions have batches.
 */
export function processBatchSpan(d: Destination, events: readonly DeliveredEvent[], consumerGroup: string): SpanSpec {
  const links: Link[] = events.flatMap((e) => {
    const context = trace.getSpanContext(carriedContext(e));
    return context ? [{ context }] : [];
  });
  return {
    name: `process ${d.topic}`,
    kind: SpanKind.CONSUMER,
    links,
    attributes: { ...destinationAttributes(d), 'messaging.operation.type': 'process', 'messaging.operation.name': 'process', 'messaging.batch.message_count': events.length, 'messaging.consumer.group.name': consumerGroup },
  };
}

/** The span of one event's delivery to the subscriber, a child of the publisher's context the event carries. */
export function processSpan(d: Destination, event: DeliveredEvent, consumerGroup: string): SpanSpec {
  return {
    name: `process ${d.topic}`,
    kind: SpanKind.CONSUMER,
    parent: carriedContext(event),
    attributes: {
      ...destinationAttributes(d),
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.message.id': event.id,
      'messaging.consumer.group.name': consumerGroup,
    },
  };
}
