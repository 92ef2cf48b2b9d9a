// `make bench`: every benchmark, one after another; each prints its own table.
import { runStateBench } from './state.js';
import { runPluggableStateBench } from './state-pluggable.js';

await runStateBench();
await runPluggableStateBench();
