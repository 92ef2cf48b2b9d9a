import { randomUUID } from 'node:crypto';
import { componentYaml, ExampleComponent, TEST_NATS_URL, TEST_REDIS_HOST, deleteJetStreamStream, deleteRedisKeysWithPrefix, tempSocketsFolder } from '../support/index.js';
import { describePubSubConformance } from '../conformance/pubsub-conformance.js';

describePubSubConformance('pubsub.in-memory', { componentYaml: () => componentYaml('pubsub', 'pubsub.in-memory', { redeliverInterval: '300ms' }) });

describePubSubConformance('pubsub.redis (Redis Streams)', {
  componentYaml: () => componentYaml('pubsub', 'pubsub.redis', { redisHost: TEST_REDIS_HOST, processingTimeout: '500ms', redeliverInterval: '300ms' }),
  cleanup: (prefix) => deleteRedisKeysWithPrefix(prefix),
});

const jetStreamName = `conf-${randomUUID().slice(0, 8)}`;
describePubSubConformance('pubsub.jetstream (NATS JetStream)', {
  componentYaml: () => componentYaml('pubsub', 'pubsub.jetstream', { natsURL: TEST_NATS_URL, streamName: jetStreamName, ackWait: '2s', nakDelay: '300ms' }),
  cleanup: () => deleteJetStreamStream(jetStreamName),
});

let example: ExampleComponent | undefined;
describePubSubConformance('pluggable (examples/pluggable-component over a Unix socket)', {
  componentYaml: () => componentYaml('pubsub', 'pubsub.memstore'),
  setUp: async () => {
    const folder = tempSocketsFolder();
    example = await ExampleComponent.start({ folder, name: 'memstore' });
    return { socketsFolder: folder };
  },
  tearDown: async () => {
    await example?.stop();
  },
});
