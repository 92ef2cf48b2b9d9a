import { InMemoryStateStore } from '../../src/state/in-memory.js';
import { describeStateStoreConformance } from '../conformance/state-store-conformance.js';

describeStateStoreConformance('state.in-memory', () => Promise.resolve(new InMemoryStateStore()));
