/** Invoking output bindings, free of any transport: the HTTP routes (and the gRPC API) call this. */
import type { ComponentManager } from '../components/manager.js';
import { RuntimeError, ensureError, isRuntimeError } from '../errors/runtime-error.js';
import { isOutputBinding, type InvokeRequest, type InvokeResponse } from '../components/contracts/bindings.js';
import type { Resiliency } from '../resiliency/resiliency.js';
import { tracingEnabled } from '../tracing/enabled.js';
import { inSpan, SpanKind } from '../tracing/spans.js';

export class OutputBindingApi {
  constructor(
    private readonly components: ComponentManager,
    /** The Resiliency policies in force: each binding's outbound timeout and circuit breaker (never a retry: an operation may not be idempotent). */
    private readonly resiliency?: () => Resiliency,
  ) {}

  async invoke(name: string, req: InvokeRequest): Promise<InvokeResponse> {
    const c = this.components.get(name);
    if (!c || c.spec.category !== 'bindings' || !isOutputBinding(c.instance)) {
      const known = this.components
        .list('bindings')
        .filter((b) => isOutputBinding(b.instance))
        .map((b) => b.spec.name);
      throw new RuntimeError('ERR_BINDING_NOT_FOUND', `output binding ${name} not found (configured: ${known.join(', ') || 'none'})`);
    }
    if (req.operation === '') throw new RuntimeError('ERR_MALFORMED_REQUEST', 'operation is required');
    const supported = c.instance.operations();
    if (supported.length > 0 && !supported.includes(req.operation)) {
      throw new RuntimeError('ERR_BINDING_OPERATION_NOT_SUPPORTED', `binding ${name} does not support operation ${req.operation} (supported: ${supported.join(', ')})`);
    }
    const binding = c.instance;
    const policy = this.resiliency?.().forComponent(name, 'outbound');
    const type = c.spec.type;
    // A CLIENT span `{operation} {binding}` when svcd traces.
    const call = !tracingEnabled()
      ? () => binding.invoke(req)
      : () => inSpan({ name: `${req.operation} ${name}`, kind: SpanKind.CLIENT, attributes: { 'svc.binding.name': name, 'svc.binding.operation': req.operation, 'svc.component.type': type } }, () => binding.invoke(req));
    try {
      return await (policy ? policy.run(call, { retryable: () => false }) : call());
    } catch (err) {
      if (isRuntimeError(err) && err.code !== 'ERROR') throw err;
      throw new RuntimeError('ERR_INVOKE_OUTPUT_BINDING', `error invoking output binding ${name}: ${ensureError(err).message}`, { cause: err });
    }
  }
}
