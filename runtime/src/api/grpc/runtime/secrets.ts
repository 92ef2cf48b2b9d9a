/** GetSecret and GetBulkSecret on `SecretsApi`. */
import type { GetBulkSecretRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/GetBulkSecretRequest.js';
import type { GetBulkSecretResponse } from '@svc/proto/gen/svc/proto/runtime/v1/GetBulkSecretResponse.js';
import type { GetSecretRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/GetSecretRequest.js';
import type { GetSecretResponse } from '@svc/proto/gen/svc/proto/runtime/v1/GetSecretResponse.js';
import type { SecretsApi } from '../../../secrets/secrets-api.js';
import type { Handler } from './handler.js';

export function secretHandlers(secrets: SecretsApi) {
  return {
    GetSecret: (async (req) => ({ data: { ...(await secrets.get(req.storeName, req.key, req.metadata)) } })) satisfies Handler<GetSecretRequest__Output, GetSecretResponse>,
    GetBulkSecret: (async (req) => {
      const all = await secrets.bulk(req.storeName, req.metadata);
      return { data: Object.fromEntries(Object.entries(all).map(([name, values]) => [name, { secrets: { ...values } }])) };
    }) satisfies Handler<GetBulkSecretRequest__Output, GetBulkSecretResponse>,
  };
}
