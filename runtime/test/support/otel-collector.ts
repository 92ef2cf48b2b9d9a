/**
 * A real OpenTelemetry Collector (built from its Go modules by scripts/ensure-collector.sh, which
 * scripts/ensure-tools.sh runs): OTLP in over gRPC and HTTP on free loopback ports, every span written by the
 * contrib file exporter to a JSON-lines file this helper reads back. Restartable on the same ports (a collector
 * that goes away and comes back).
 */
import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestChildProcess } from './child-process.js';
import { freePort } from './ports.js';
import { removeTempFolder, tempFolder } from './temp-folders.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** The cached binary of scripts/ensure-collector.sh (the script owns the version and the cache path). */
function collectorBinary(): string {
  const res = spawnSync('bash', [path.join(REPO, 'scripts/ensure-collector.sh'), '--print-path'], { encoding: 'utf8' });
  const bin = res.stdout.trim();
  if (res.status !== 0 || !existsSync(bin)) throw new Error(`the OpenTelemetry Collector is not built (${bin} ${res.stderr}): run scripts/ensure-collector.sh (scripts/ensure-tools.sh calls it)`);
  return bin;
}

/** One span as the collector received it. */
export interface CollectedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's numbering: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  /** The spans it links to. */
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

interface OtlpValue {
  stringValue?: string;
  intValue?: string;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: OtlpValue }[];
  status?: { code?: number };
  links?: { traceId: string; spanId: string }[];
}
interface OtlpLine {
  resourceSpans: { resource: { attributes: { key: string; value: OtlpValue }[] }; scopeSpans: { spans?: OtlpSpan[] }[] }[];
}

const valueOf = (v: OtlpValue): unknown => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));

function attributesOf(list: { key: string; value: OtlpValue }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));
}

function configYaml(grpcPort: number, httpPort: number, file: string): string {
  return `receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:${grpcPort}
      http:
        endpoint: 127.0.0.1:${httpPort}
exporters:
  file:
    path: ${file}
    flush_interval: 100ms
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
`;
}

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(!!socket.end()));
    socket.once('error', () => resolve(false));
  });
}

export class OtelCollector {
  #process: TestChildProcess | undefined;

  private constructor(
    private readonly bin: string,
    private readonly folder: string,
    readonly grpcPort: number,
    readonly httpPort: number,
  ) {}

  static async start(): Promise<OtelCollector> {
    const collector = new OtelCollector(collectorBinary(), tempFolder('otelcol-'), await freePort(), await freePort());
    await collector.resume();
    return collector;
  }

  get spansFile(): string {
    return path.join(this.folder, 'spans.jsonl');
  }

  /** `host:port` of the OTLP/HTTP receiver, as `spec.tracing.otel.endpointAddress` takes it. */
  get httpEndpoint(): string {
    return `127.0.0.1:${this.httpPort}`;
  }

  get grpcEndpoint(): string {
    return `127.0.0.1:${this.grpcPort}`;
  }

  /** Starts the collector (again, on the same ports and file) and waits until both receivers listen. */
  async resume(): Promise<void> {
    const config = path.join(this.folder, 'config.yaml');
    writeFileSync(config, configYaml(this.grpcPort, this.httpPort, this.spansFile));
    const proc = new TestChildProcess(spawn(this.bin, ['--config', config], { stdio: ['ignore', 'pipe', 'pipe'] }));
    this.#process = proc;
    const deadline = Date.now() + 30_000;
    while (!((await listening(this.grpcPort)) && (await listening(this.httpPort)))) {
      if (proc.child.exitCode !== null || Date.now() > deadline) throw new Error(`the collector did not start:\n${proc.output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Stops it (its file stays): the collector goes away. */
  async pause(): Promise<void> {
    await this.#process?.stop();
    this.#process = undefined;
  }

  async stop(): Promise<void> {
    await this.pause();
    removeTempFolder(this.folder);
  }

  /** Every span received so far. */
  spans(): CollectedSpan[] {
    if (!existsSync(this.spansFile)) return [];
    const out: CollectedSpan[] = [];
    for (const line of readFileSync(this.spansFile, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      for (const rs of (JSON.parse(line) as OtlpLine).resourceSpans) {
        const service = String(attributesOf(rs.resource.attributes)['service.name']);
        for (const s of rs.scopeSpans.flatMap((ss) => ss.spans ?? [])) {
          out.push({ service, traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '', name: s.name, kind: s.kind, attributes: attributesOf(s.attributes), statusCode: s.status?.code ?? 0, links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })) });
        }
      }
    }
    return out;
  }

  /**
   * How many spans were received so far, counted without parsing (a benchmark's file outgrows a string): each span
   * of the file exporter's JSON has one `"kind":`. Read it before `stop`, which removes the file.
   */
  async countSpans(): Promise<number> {
    if (!existsSync(this.spansFile)) return 0;
    const marker = '"kind":';
    let count = 0;
    let carry = '';
    for await (const chunk of createReadStream(this.spansFile, { encoding: 'utf8' })) {
      const text = carry + (chunk as string);
      for (let i = text.indexOf(marker); i >= 0; i = text.indexOf(marker, i + marker.length)) count++;
      carry = text.slice(-(marker.length - 1));
    }
    return count;
  }

  /** The spans of one trace, once `ready` says they are all there (polled; fails after `timeoutMs`). */
  async trace(traceId: string, ready: (spans: CollectedSpan[]) => boolean, timeoutMs = 20_000): Promise<CollectedSpan[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const spans = this.spans().filter((s) => s.traceId === traceId);
      if (ready(spans)) return spans;
      if (Date.now() > deadline) throw new Error(`trace ${traceId} not complete within ${timeoutMs} ms; received:\n${spans.map((s) => `  ${s.service} ${s.name} ${s.spanId}←${s.parentSpanId}`).join('\n')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/**
 * A collector for the suite around the call (mocha `before`/`after` hooks), started once; call it inside a
 * `describe` and read the collector in the tests through the getter it returns.
 */
export function collectorForSuite(): () => OtelCollector {
  let collector: OtelCollector | undefined;
  before(async () => {
    collector = await OtelCollector.start();
  });
  after(async () => {
    await collector?.stop();
  });
  return () => {
    if (!collector) throw new Error('the collector has not started');
    return collector;
  };
}

/** The one span of `spans` that `match` takes; fails naming `what` when there is none or more than one. */
export function onlySpan(spans: readonly CollectedSpan[], what: string, match: (s: CollectedSpan) => boolean): CollectedSpan {
  const found = spans.filter(match);
  expect(found, what).to.have.length(1);
  return found[0]!;
}

/** A W3C trace context as a caller writes it: a random trace id and parent span id, sampled. */
export function callerContext(): { traceId: string; spanId: string; traceparent: string } {
  const hex = (bytes: number) => Array.from({ length: bytes }, () => Math.floor(Math.random() * 256).toString(16).padStart(2, '0')).join('');
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** The parts of a `traceparent` header. */
export function parseTraceparent(value: unknown): { traceId: string; parentId: string; flags: string } {
  const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(String(value));
  if (!m) throw new Error(`not a traceparent: ${String(value)}`);
  return { traceId: m[1]!, parentId: m[2]!, flags: m[3]! };
}

/** `spec.tracing` of a Configuration resource, indented for a document's `spec:`. */
export function tracingSpec(opts: { samplingRate: number | string; endpoint?: string; protocol?: 'http' | 'grpc' }): string {
  const otel = opts.endpoint ? `\n    otel:\n      endpointAddress: "${opts.endpoint}"\n      isSecure: false\n      protocol: ${opts.protocol ?? 'http'}` : '';
  return `  tracing:\n    samplingRate: "${opts.samplingRate}"${otel}\n`;
}

/** A Configuration resource with only tracing. */
export function tracingConfiguration(opts: Parameters<typeof tracingSpec>[0]): string {
  return `apiVersion: svc.io/v1alpha1\nkind: Configuration\nmetadata:\n  name: tracing\nspec:\n${tracingSpec(opts)}`;
}
