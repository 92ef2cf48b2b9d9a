import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCommandLine } from '../../src/config/config.js';
import { OPTIONS } from '../../src/config/options.js';
import { parseDuration, parseSize } from '../../src/config/parse-values.js';
import { isRuntimeError } from '../../src/errors/runtime-error.js';

function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const parsed = parseCommandLine(argv, env);
  if (parsed.kind !== 'run') throw new Error(`expected a run config, got ${parsed.kind}`);
  return parsed.config;
}

describe('config', () => {
  it('uses the documented defaults', () => {
    const c = run([]);
    expect(c.httpPort).to.equal(3500);
    expect(c.grpcPort).to.equal(50001);
    expect(c.internalGrpcPort).to.equal(0);
    expect(c.metricsPort).to.equal(9090);
    expect(c.componentsSocketsFolder).to.equal('/tmp/svc-components-sockets');
    expect(c.maxRequestSizeBytes).to.equal(4 * 1024 * 1024);
    expect(c.mode).to.equal('standalone');
    expect(c.apiToken).to.equal(undefined);
  });

  it('keeps the metrics server (no API token) on loopback outside kubernetes, however the APIs listen', () => {
    expect(run(['--listen-address', '0.0.0.0']).metricsListenAddress).to.equal('127.0.0.1');
    expect(run(['--mode', 'kubernetes', '--listen-address', '0.0.0.0']).metricsListenAddress).to.equal('0.0.0.0');
    expect(run(['--listen-address', '0.0.0.0'], { SVC_METRICS_LISTEN_ADDRESS: '0.0.0.0' }).metricsListenAddress).to.equal('0.0.0.0');
    expect(run(['--mode', 'kubernetes', '--metrics-listen-address', '127.0.0.1']).metricsListenAddress).to.equal('127.0.0.1');
  });

  it('opens the replica-to-replica port on a free port standalone (two svcd on one host), on 50002 in kubernetes mode', () => {
    expect(run([]).internalGrpcPort).to.equal(0);
    expect(run(['--mode', 'kubernetes']).internalGrpcPort).to.equal(50002);
    expect(run(['--internal-grpc-port', '7000']).internalGrpcPort).to.equal(7000);
    expect(run(['--mode', 'kubernetes'], { SVC_INTERNAL_GRPC_PORT: '7001' }).internalGrpcPort).to.equal(7001);
  });

  it('takes a trace viewer address with {traceId} from --trace-viewer-url or SVC_TRACE_VIEWER_URL (none by default)', () => {
    expect(run([]).traceViewerUrl).to.equal(undefined);
    expect(run(['--trace-viewer-url', 'http://jaeger:16686/trace/{traceId}']).traceViewerUrl).to.equal('http://jaeger:16686/trace/{traceId}');
    expect(run([], { SVC_TRACE_VIEWER_URL: 'https://grafana.example/explore?traceId={traceId}' }).traceViewerUrl).to.equal('https://grafana.example/explore?traceId={traceId}');
  });

  it('lets flags win over env vars, and env vars over defaults', () => {
    const env = { SVC_APP_ID: 'from-env', SVC_HTTP_PORT: '4000', SVC_GRPC_PORT: '4001' };
    const c = run(['--app-id', 'from-flag', '--http-port', '5000'], env);
    expect(c.appId).to.equal('from-flag');
    expect(c.httpPort).to.equal(5000);
    expect(c.grpcPort).to.equal(4001);
  });

  it('accepts repeated --resources-path and a comma-separated env list', () => {
    expect(run(['--resources-path', '/a', '--resources-path', '/b']).resourcesPaths).to.deep.equal(['/a', '/b']);
    expect(run([], { SVC_RESOURCES_PATH: '/x, /y' }).resourcesPaths).to.deep.equal(['/x', '/y']);
  });

  it('keeps --config / SVC_CONFIG as given (a file or a resource name; its loader tells them apart)', () => {
    expect(run([]).config).to.equal(undefined);
    expect(run(['--config', 'appconfig']).config).to.equal('appconfig');
    expect(run([], { SVC_CONFIG: './config.yaml' }).config).to.equal('./config.yaml');
  });

  it('takes boolean flags alone or with a value', () => {
    expect(run(['--log-as-json']).logAsJson).to.equal(true);
    expect(run(['--log-as-json', '--app-id', 'a']).logAsJson).to.equal(true);
    expect(run(['--log-as-json', 'false']).logAsJson).to.equal(false);
    expect(run(['--log-as-json=false']).logAsJson).to.equal(false);
    expect(run([], { SVC_LOG_AS_JSON: 'true' }).logAsJson).to.equal(true);
  });

  it('reads the API token from the environment only', () => {
    expect(run([], { SVC_API_TOKEN: 's3cret' }).apiToken).to.equal('s3cret');
    expect(() => run(['--api-token', 'x'])).to.throw(/api-token/);
  });

  it('rejects bad values with a message naming the flag and its env var', () => {
    const attempts: [string[], RegExp][] = [
      [['--http-port', '70000'], /--http-port \/ SVC_HTTP_PORT.*port/],
      [['--max-request-size', 'lots'], /--max-request-size.*size/],
      [['--log-level', 'loud'], /--log-level.*one of/],
      [['--mode', 'cloud'], /--mode.*standalone, kubernetes/],
      [['--component-init-timeout', '5 parsecs'], /duration/],
      [['--no-such-flag'], /no-such-flag/],
      [['--trace-viewer-url', 'http://jaeger:16686/search'], /--trace-viewer-url.*\{traceId\}/],
      [['--trace-viewer-url', 'javascript:alert({traceId})'], /--trace-viewer-url.*http or https/],
      [['--trace-viewer-url', 'jaeger/{traceId}'], /--trace-viewer-url.*not an address/],
    ];
    for (const [argv, message] of attempts) {
      try {
        run(argv);
        expect.fail(`accepted ${argv.join(' ')}`);
      } catch (err) {
        expect(isRuntimeError(err, 'ERR_CONFIG_INVALID'), String(err)).to.equal(true);
        expect((err as Error).message).to.match(message);
      }
    }
  });

  it('lists every option in --help', () => {
    const help = parseCommandLine(['--help']);
    if (help.kind !== 'help') throw new Error('expected help');
    for (const def of OPTIONS) {
      const envOnly = 'envOnly' in def && def.envOnly;
      expect(help.text).to.include(envOnly ? def.env : `--${def.flag}`);
    }
  });

  it('documents every option in docs/configuration.md', () => {
    // dist/test/config → repository root
    const docs = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../docs/configuration.md'), 'utf8');
    for (const def of OPTIONS) {
      const envOnly = 'envOnly' in def && def.envOnly;
      if (!envOnly) expect(docs, `--${def.flag}`).to.include(`--${def.flag}`);
      if (def.env) expect(docs, def.env).to.include(def.env);
    }
  });

  it('parses sizes and durations', () => {
    expect(parseSize('512Ki')).to.equal(524288);
    expect(parseSize('4Mi')).to.equal(4194304);
    expect(parseSize('1048576')).to.equal(1048576);
    expect(parseDuration('1m30s')).to.equal(90_000);
    expect(parseDuration('250ms')).to.equal(250);
    expect(parseDuration('1h')).to.equal(3_600_000);
    expect(() => parseDuration('5 s')).to.throw(/duration/);
    expect(() => parseDuration('')).to.throw(/duration/);
  });
});
