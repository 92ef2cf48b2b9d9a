import { randomUUID } from 'node:crypto';
import { componentYaml, exampleComponentHooks, TEST_NATS_URL, TEST_REDIS_HOST, deleteJetStreamStream, deleteRedisKeysWithPrefix } from '../support/index.js';
import { describePubSubConformance } from '../conformance/pubsub-conformance.js';

describePubSubConformance('pubsub.in-memory', { componentYaml: () => componentYaml('pubsub', 'pubsub.in-memory', { redeliverInterval: '300ms' }) });

describePubSubConformance('pubsub.sqlite (embedded)', { componentYaml: () => componentYaml('pubsub', 'pubsub.sqlite', { redeliverInterval: '300ms' }) });

describePubSubConformance('pubsub.redis (Redis Streams)', {
  componentYaml: () => componentYaml('pubsub', 'pubsub.redis', { redisHost: TEST_REDIS_HOST, processingTimeout: '500ms', redeliverInterval: '300ms' }),
  cleanup: (prefix) => deleteRedisKeysWithPrefix(prefix),
});

const jetStreamName = `conf-${randomUUID().slice(0, 8)}`;
describePubSubConformance('pubsub.jetstream (NATS JetStream)', {
  componentYaml: () => componentYaml('pubsub', 'pubsub.jetstream', { natsURL: TEST_NATS_URL, streamName: jetStreamName, ackWait: '2s', nakDelay: '300ms' }),
  cleanup: () => deleteJetStreamStream(jetStreamName),
});

for (const pkg of ['svc.proto.components.v1', 'dapr.proto.components.v1'] as const) {
  describePubSubConformance(`pluggable (examples/pluggable-component over a Unix socket, ${pkg})`, {
    componentYaml: () => componentYaml('pubsub', 'pubsub.memstore'),
    ...exampleComponentHooks({ name: 'memstore', pkg }),
  });
}
