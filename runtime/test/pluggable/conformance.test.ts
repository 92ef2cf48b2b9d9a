/**
 * The state store conformance suite against the example pluggable component: a real component process on a real
 * socket, reached through svcd's own discovery and gRPC state store adapter (the same objects svcd's state API
 * uses).
 */
import { pino } from 'pino';
import { probeSocket } from '../../src/components/pluggable/discovery.js';
import { registrationsFor } from '../../src/components/pluggable/registrations.js';
import { ReplyBudget } from '../../src/components/pluggable/reply-budget.js';
import { parseComponentSpec } from '../../src/components/spec.js';
import type { StateStore } from '../../src/components/contracts/state-store.js';
import { describeStateStoreConformance } from '../support/index.js';
import { ExampleComponent, tempSocketsFolder } from '../support/example-component.js';

const log = pino({ level: 'silent' });

async function pluggableStore(opts: { pkg?: 'dapr.proto.components.v1'; reflection?: 'v1alpha' }): Promise<{ store: StateStore; component: ExampleComponent }> {
  const folder = tempSocketsFolder();
  const component = await ExampleComponent.start({ folder, name: 'memstore', ...opts });
  const discovered = await probeSocket({ name: 'memstore', path: component.socketPath }, 5000);
  const registration = registrationsFor(discovered, { pingIntervalMs: 1000, maxReplyBytes: 16 * 1024 * 1024, replyBudget: new ReplyBudget(256 * 1024 * 1024) }).find((r) => r.type === 'state.memstore')!;
  const spec = parseComponentSpec(
    { apiVersion: 'svc.io/v1alpha1', kind: 'Component', metadata: { name: 'conformance' }, spec: { type: 'state.memstore', version: 'v1' } },
    'conformance.test.ts',
  );
  const store = (await registration.create(spec, { appId: 'conformance', dataDir: folder, resourcesPaths: [], log })) as unknown as StateStore;
  return { store, component };
}

for (const variant of [
  { label: 'example pluggable component (svc.proto, reflection v1)', opts: {} },
  { label: 'example pluggable component (dapr.proto, reflection v1alpha)', opts: { pkg: 'dapr.proto.components.v1', reflection: 'v1alpha' } } as const,
]) {
  let component: ExampleComponent | undefined;
  describeStateStoreConformance(
    variant.label,
    async () => {
      const made = await pluggableStore(variant.opts);
      component = made.component;
      return made.store;
    },
    async () => component?.stop(),
    { features: ['ETAG', 'TRANSACTIONAL'], listsKeys: false },
  );
}
