import { componentYaml, exampleComponentHooks } from '../support/index.js';
import { describeBindingConformance } from '../conformance/bindings-conformance.js';

describeBindingConformance('bindings.cron', {
  componentYaml: (metadata) => componentYaml('binding', 'bindings.cron', { schedule: '@every 1s', ...metadata }),
  input: { trigger: () => Promise.resolve() }, // fires every second on its own
});

for (const pkg of ['svc.proto.components.v1', 'dapr.proto.components.v1'] as const) {
  const create = { data: { order: 1 }, metadata: { contentType: 'application/json' } };
  describeBindingConformance(`pluggable outbox (examples/pluggable-component, ${pkg})`, {
    componentYaml: (metadata) => componentYaml('binding', 'bindings.memstore', metadata),
    input: {
      trigger: async (svcd) => {
        const res = await svcd.request('POST', '/v1.0/bindings/binding', { operation: 'create', ...create });
        if (res.status !== 200) throw new Error(`create answered ${res.status}: ${await res.text()}`);
      },
    },
    output: { operation: 'create', request: create },
    ...exampleComponentHooks({ name: 'memstore', pkg }),
  });
}
