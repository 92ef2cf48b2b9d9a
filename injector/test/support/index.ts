/** What other workspaces' tests use of svc-injector's test support (`@svc/injector/test-support`). */
export { InjectorProcess, INJECTOR_MAIN, removeTestCerts, writeTestCerts, type TestCerts } from './injector-process.js';
export { CHART_DIR, helmBinary } from './helm.js';
