/** InvokeService on `InvocationApi`: the request becomes an HTTP-shaped call, the answer one message. */
import type { InvokeResponse } from '@svc/proto/gen/svc/proto/common/v1/InvokeResponse.js';
import type { InvokeServiceRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/InvokeServiceRequest.js';
import { Readable } from 'node:stream';
import type { Headers } from '../../../app/app-invocation.js';
import { malformedRequest } from '../../../errors/catalogue.js';
import { RuntimeError } from '../../../errors/runtime-error.js';
import type { InvocationApi } from '../../../invocation/invocation-api.js';
import { readAtMost } from '../../../util/read-at-most.js';
import { grpcStatusOfHttp } from '../../../util/status-mapping.js';
import type { Handler } from './handler.js';

/** Metadata that is gRPC's own, or the caller's credentials for this sidecar: not headers for the target app. */
const NOT_HEADERS = /^(?::|grpc-|content-type$|content-length$|te$|user-agent$|svc-api-token$|dapr-api-token$)/;

/** How much of a failed answer's body goes into the status message. */
const QUOTED_BODY_CHARS = 512;

export function invokeHandlers(api: InvocationApi, maxAnswerBytes: number) {
  return {
    InvokeService: (async (req, call, cancelled) => {
      const m = req.message;
      if (!m || m.method === '') throw malformedRequest('InvokeService needs message.method');
      const data = m.data?.value ?? Buffer.alloc(0);
      const headers: Headers = {};
      for (const [name, values] of Object.entries(call.metadata.getMap())) if (!NOT_HEADERS.test(name) && !name.endsWith('-bin')) headers[name] = String(values);
      if (m.contentType) headers['content-type'] = m.contentType;
      headers['content-length'] = String(data.length);
      // NONE is how gRPC callers say "just call the method": POST, as the reference system sends it.
      const verb = !m.httpExtension || m.httpExtension.verb === 'NONE' ? 'POST' : m.httpExtension.verb;
      const answer = await api.invoke(req.id, { verb, path: encodeURI(`/${m.method}`), query: m.httpExtension?.querystring ?? '', headers, body: Readable.from([data]) }, cancelled());
      const body = await readAtMost(answer.body, maxAnswerBytes);
      if (answer.status < 200 || answer.status >= 300) {
        const quoted = body.toString('utf8', 0, QUOTED_BODY_CHARS);
        throw new RuntimeError('ERR_DIRECT_INVOKE', `the app answered HTTP ${answer.status}: ${quoted}`, { httpStatus: answer.status, grpcStatus: grpcStatusOfHttp(answer.status) });
      }
      const contentType = answer.headers['content-type'];
      return { data: { type_url: '', value: body }, contentType: Array.isArray(contentType) ? contentType.join(', ') : (contentType ?? '') };
    }) satisfies Handler<InvokeServiceRequest__Output, InvokeResponse>,
  };
}
