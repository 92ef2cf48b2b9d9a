import { componentYaml, ExampleComponent, TEST_REDIS_HOST, deleteRedisKeysWithPrefix, tempSocketsFolder } from '../support/index.js';
import { describePubSubConformance } from '../conformance/pubsub-conformance.js';

describePubSubConformance('pubsub.in-memory', { componentYaml: () => componentYaml('pubsub', 'pubsub.in-memory', { redeliverInterval: '300ms' }) });

describePubSubConformance('pubsub.redis (Redis Streams)', {
  componentYaml: () => componentYaml('pubsub', 'pubsub.redis', { redisHost: TEST_REDIS_HOST, processingTimeout: '500ms', redeliverInterval: '300ms' }),
  cleanup: (prefix) => deleteRedisKeysWithPrefix(prefix),
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
