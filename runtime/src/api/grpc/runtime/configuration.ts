/**
 * GetConfiguration, SubscribeConfiguration (a server stream) and UnsubscribeConfiguration, each also as …Alpha1,
 * on `ConfigurationApi`.
 */
import type * as grpc from '@grpc/grpc-js';
import type { GetConfigurationRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/GetConfigurationRequest.js';
import type { GetConfigurationResponse } from '@svc/proto/gen/svc/proto/runtime/v1/GetConfigurationResponse.js';
import type { SubscribeConfigurationRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/SubscribeConfigurationRequest.js';
import type { SubscribeConfigurationResponse } from '@svc/proto/gen/svc/proto/runtime/v1/SubscribeConfigurationResponse.js';
import type { UnsubscribeConfigurationRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/UnsubscribeConfigurationRequest.js';
import type { UnsubscribeConfigurationResponse } from '@svc/proto/gen/svc/proto/runtime/v1/UnsubscribeConfigurationResponse.js';
import type { ConfigurationApi, ConfigurationUpdate } from '../../../configuration/configuration-api.js';
import { authorized, serviceError, UNAUTHENTICATED } from '../call-guard.js';
import type { Handler } from './handler.js';

export function configurationHandlers(api: ConfigurationApi) {
  const get: Handler<GetConfigurationRequest__Output, GetConfigurationResponse> = async (req) => ({ items: { ...(await api.get(req.storeName, req)) } });
  const unsubscribe: Handler<UnsubscribeConfigurationRequest__Output, UnsubscribeConfigurationResponse> = (req) => api.unsubscribe(req.storeName, req.id);
  return { GetConfiguration: get, GetConfigurationAlpha1: get, UnsubscribeConfiguration: unsubscribe, UnsubscribeConfigurationAlpha1: unsubscribe };
}

type Stream = grpc.ServerWritableStream<SubscribeConfigurationRequest__Output, SubscribeConfigurationResponse>;

/**
 * The stream's first message carries only the subscription's id (what UnsubscribeConfiguration takes); each later
 * one the id and the items that changed. The subscription ends when the client cancels the call, or with an OK end
 * of the stream when it is unsubscribed by id or svcd stops.
 */
export function subscribeConfigurationHandler(api: ConfigurationApi, apiToken: string | undefined): (call: Stream) => void {
  return (call) => {
    if (!authorized(call, apiToken)) {
      call.emit('error', UNAUTHENTICATED);
      return;
    }
    // Changes reported before the id went out wait for it, so the id is always the first message.
    let early: ConfigurationUpdate[] | undefined = [];
    const send = (u: ConfigurationUpdate) => call.write({ id: u.id, items: { ...u.items } });
    api
      .subscribe(call.request.storeName, call.request, { onUpdate: (u) => (early ? early.push(u) : send(u)), onEnd: () => call.end() })
      .then((id) => {
        call.write({ id });
        for (const u of early ?? []) send(u);
        early = undefined;
        if (call.cancelled) void api.release(id);
        else call.on('cancelled', () => void api.release(id));
      })
      .catch((err: unknown) => call.emit('error', serviceError(err)));
  };
}
