import { expect } from 'chai';
import { compileTracingOptions } from '../../src/tracing/options.js';
import { expectRuntimeError } from '../support/expect-runtime-error.js';

describe('tracing options (spec.tracing of the Configuration, OTEL_EXPORTER_OTLP_* env)', () => {
  it('is off without a spec.tracing and without an endpoint in the environment', () => {
    expect(compileTracingOptions(undefined, {})).to.equal(undefined);
  });

  it('reads the rate as Dapr writes it (a string) or as a number; 1 when left out', () => {
    expect(compileTracingOptions({ samplingRate: '0.25' }, {})).to.deep.equal({ samplingRate: 0.25, exporter: undefined });
    expect(compileTracingOptions({ samplingRate: 0 }, {})?.samplingRate).to.equal(0);
    expect(compileTracingOptions({}, {})?.samplingRate).to.equal(1);
  });

  it('refuses a rate outside 0..1 or not a number, naming the field', () => {
    for (const bad of ['1.5', '-0.1', 'all', true]) {
      expectRuntimeError(() => compileTracingOptions({ samplingRate: bad }, {}, 'file /r/c.yaml'), 'ERR_CONFIGURATION_INVALID', /file \/r\/c\.yaml: spec\.tracing\.samplingRate must be a number from 0 to 1/);
    }
  });

  it('turns endpointAddress into the exporter URL: /v1/traces for OTLP/HTTP, scheme from isSecure, host:port for gRPC', () => {
    expect(compileTracingOptions({ otel: { endpointAddress: 'localhost:4318' } }, {})?.exporter).to.deep.equal({ url: 'http://localhost:4318/v1/traces', protocol: 'http' });
    expect(compileTracingOptions({ otel: { endpointAddress: 'collector:4318', isSecure: true, protocol: 'http' } }, {})?.exporter?.url).to.equal('https://collector:4318/v1/traces');
    expect(compileTracingOptions({ otel: { endpointAddress: 'http://c:4318/base/' } }, {})?.exporter?.url).to.equal('http://c:4318/base/v1/traces');
    expect(compileTracingOptions({ otel: { endpointAddress: 'collector:4317', protocol: 'grpc', isSecure: 'true' } }, {})?.exporter).to.deep.equal({ url: 'https://collector:4317/', protocol: 'grpc' });
  });

  it('refuses an unknown protocol and an endpoint that is no address', () => {
    expectRuntimeError(() => compileTracingOptions({ otel: { endpointAddress: 'c:4317', protocol: 'zipkin' } }, {}), 'ERR_CONFIGURATION_INVALID', /spec\.tracing\.otel\.protocol must be http or grpc/);
    expectRuntimeError(() => compileTracingOptions({ otel: { endpointAddress: 'ftp://c:21' } }, {}), 'ERR_CONFIGURATION_INVALID', /spec\.tracing\.otel\.endpointAddress is not an address/);
    expectRuntimeError(() => compileTracingOptions({ otel: 'c:4317' }, {}), 'ERR_CONFIGURATION_INVALID', /spec\.tracing\.otel must be a map/);
  });

  it('takes OTEL_EXPORTER_OTLP_ENDPOINT (and _PROTOCOL) when the Configuration names no endpoint; the Configuration wins', () => {
    expect(compileTracingOptions(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318' })).to.deep.equal({ samplingRate: 1, exporter: { url: 'http://otel:4318/v1/traces', protocol: 'http' } });
    expect(compileTracingOptions({ samplingRate: '0.5' }, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).to.deep.equal({ samplingRate: 0.5, exporter: { url: 'http://otel:4317/', protocol: 'grpc' } });
    expect(compileTracingOptions(undefined, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://otel:4318/custom/path' })?.exporter?.url).to.equal('http://otel:4318/custom/path');
    expect(compileTracingOptions({ otel: { endpointAddress: 'mine:4318' } }, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318' })?.exporter?.url).to.equal('http://mine:4318/v1/traces');
    expectRuntimeError(() => compileTracingOptions(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' }), 'ERR_CONFIGURATION_INVALID', /environment: OTEL_EXPORTER_OTLP_PROTOCOL must be http or grpc/);
  });
});
