/**
 * An app on the gRPC app channel (`--app-protocol grpc`) that subscribes to one topic: it lists the subscription
 * (ListTopicSubscriptions), records each OnTopicEvent with the metadata it came with, and answers SUCCESS.
 */
import * as grpc from '@grpc/grpc-js';
import { loadAppCallbackProto } from '@svc/proto';
import { freePort } from '@svc/runtime/test-support';

export interface GrpcDelivery {
  readonly request: { id: string; topic: string; extensions?: { fields?: Record<string, { stringValue?: string }> } };
  readonly metadata: Record<string, string>;
}

export class GrpcSubscriberApp {
  readonly deliveries: GrpcDelivery[] = [];

  private constructor(
    private readonly server: grpc.Server,
    readonly port: number,
  ) {}

  static async start(pubsubName: string, topic: string): Promise<GrpcSubscriberApp> {
    const server = new grpc.Server();
    const port = await freePort();
    const app = new GrpcSubscriberApp(server, port);
    server.addService(loadAppCallbackProto().AppCallback.service, {
      ListTopicSubscriptions: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => callback(null, { subscriptions: [{ pubsubName, topic, routes: { rules: [], default: '' } }] }),
      OnTopicEvent: (call: grpc.ServerUnaryCall<GrpcDelivery['request'], unknown>, callback: grpc.sendUnaryData<unknown>) => {
        const metadata = Object.fromEntries(Object.entries(call.metadata.getMap()).map(([k, v]) => [k, String(v)]));
        app.deliveries.push({ request: call.request, metadata });
        callback(null, { status: 'SUCCESS' });
      },
      ListInputBindings: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => callback(null, { bindings: [] }),
    });
    await new Promise<void>((resolve, reject) => server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
    return app;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.tryShutdown(() => resolve()));
  }
}
