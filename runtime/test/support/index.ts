export { SvcdProcess, SVCD_MAIN, type SvcdOptions } from './svcd-process.js';
export { freePort } from './ports.js';
export { TEST_POSTGRES_URL, TEST_REDIS_HOST } from './services.js';
export { describeStateStoreConformance, type StateStoreConformanceOptions } from '../conformance/state-store-conformance.js';
export { componentYaml, type ComponentYamlOptions } from './components.js';
export { ExampleComponent, rogueSocket, tempSocketsFolder, EXAMPLE_COMPONENT_MAIN, type ExampleOptions } from './example-component.js';
