import * as grpc from '@grpc/grpc-js';
import { encodeRichStatus, STATUS_DETAILS_TRAILER, type StatusDetail } from '@svc/proto';
import { expect } from 'chai';
import { componentStatusErrorOf, etagErrorOf } from '../../src/components/pluggable/grpc-errors.js';
import { ComponentStatusError, StateEtagError } from '../../src/components/contracts/state-store.js';

/** A gRPC error as grpc-js hands it to a client, with real encoded status details. */
function serviceError(code: grpc.status, details: StatusDetail[] | undefined): grpc.ServiceError {
  const metadata = new grpc.Metadata();
  if (details) metadata.set(STATUS_DETAILS_TRAILER, encodeRichStatus({ code, message: 'from the component', details }));
  return Object.assign(new Error(`${code} from the component`), { code, details: 'from the component', metadata });
}

const etagViolation = (field = 'etag'): StatusDetail => ({ type: 'google.rpc.BadRequest', fieldViolations: [{ field, description: 'version 3 is stale' }] });
const httpInfo = (http_code: string): StatusDetail => ({ type: 'google.rpc.ErrorInfo', reason: 'R', domain: 'd', metadata: { kit_error: 'true', http_code, tag: 'ERR_CUSTOM' } });

describe('pluggable gRPC error mapping', () => {
  it('maps FAILED_PRECONDITION / INVALID_ARGUMENT with one BadRequest on field etag to ETag errors', () => {
    const mismatch = etagErrorOf(serviceError(grpc.status.FAILED_PRECONDITION, [etagViolation()]), 'k');
    expect(mismatch).to.be.instanceOf(StateEtagError);
    expect(mismatch?.kind).to.equal('mismatch');
    expect(mismatch?.message).to.include('version 3 is stale');
    expect(etagErrorOf(serviceError(grpc.status.INVALID_ARGUMENT, [etagViolation()]), 'k')?.kind).to.equal('invalid');
  });

  it('keeps other shapes as plain errors: other code, other field, no details, two details', () => {
    expect(etagErrorOf(serviceError(grpc.status.ABORTED, [etagViolation()]), 'k')).to.equal(undefined);
    expect(etagErrorOf(serviceError(grpc.status.FAILED_PRECONDITION, [etagViolation('key')]), 'k')).to.equal(undefined);
    expect(etagErrorOf(serviceError(grpc.status.FAILED_PRECONDITION, undefined), 'k')).to.equal(undefined);
    expect(etagErrorOf(serviceError(grpc.status.FAILED_PRECONDITION, [etagViolation(), etagViolation()]), 'k')).to.equal(undefined);
  });

  it('maps one ErrorInfo with an integer http_code to a ComponentStatusError with its tag', () => {
    const err = componentStatusErrorOf(serviceError(grpc.status.RESOURCE_EXHAUSTED, [httpInfo('429')]), 'store s');
    expect(err).to.be.instanceOf(ComponentStatusError);
    expect([err?.httpStatus, err?.tag, err?.message]).to.deep.equal([429, 'ERR_CUSTOM', 'from the component']);
  });

  it('makes an http_code that is not an error status (or not a number) a 500 naming the component', () => {
    for (const code of ['teapot', '99', '100', '200', '204', '304', '399', '600']) {
      const err = componentStatusErrorOf(serviceError(grpc.status.INTERNAL, [httpInfo(code)]), 'store s');
      expect([err?.httpStatus, err?.message.includes(`store s failed with http_code ${code}`)], code).to.deep.equal([500, true]);
    }
  });

  it('ignores an ErrorInfo next to another detail', () => {
    expect(componentStatusErrorOf(serviceError(grpc.status.INTERNAL, [httpInfo('418'), etagViolation()]), 'store s')).to.equal(undefined);
  });

  it('ignores status details that are not a google.rpc.Status', () => {
    const err = serviceError(grpc.status.FAILED_PRECONDITION, undefined);
    err.metadata.set(STATUS_DETAILS_TRAILER, Buffer.from([0xff, 0xff, 0xff]));
    expect(etagErrorOf(err, 'k')).to.equal(undefined);
  });
});
