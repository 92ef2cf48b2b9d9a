import type { ComponentRegistry } from './registry.js';

/** Registers every built-in component type. */
export function registerBuiltinComponents(_registry: ComponentRegistry): void {
  // The built-in state stores register here (state.in-memory, state.sqlite, state.redis, state.postgresql).
}
