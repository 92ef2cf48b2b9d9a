/** GetMetadata and SetMetadata on `RuntimeMetadata`, the same snapshot `/v1.0/metadata` shows. */
import type { GetMetadataResponse } from '@svc/proto/gen/svc/proto/runtime/v1/GetMetadataResponse.js';
import type { SetMetadataRequest__Output } from '@svc/proto/gen/svc/proto/runtime/v1/SetMetadataRequest.js';
import type { RuntimeMetadata } from '../../../metadata/runtime-metadata.js';
import type { Handler } from './handler.js';

interface Snapshot {
  id?: string;
  runtimeVersion?: string;
  components?: { name: string; type: string; version: string; capabilities: string[] }[];
  actors?: { type: string; count: number }[];
  actorRuntime?: { runtimeStatus?: string; activeActors?: { type: string; count: number }[]; hostReady?: boolean; placement?: string };
  workflows?: { connectedWorkers?: number };
  subscriptions?: { pubsubname: string; topic: string; metadata: Record<string, string>; rules: { match: string; path: string }[]; deadLetterTopic?: string; type: string }[];
  extended?: Record<string, string>;
  appConnectionProperties?: { port: number; protocol: string; channelAddress: string };
}

function toWire(s: Snapshot): GetMetadataResponse {
  const actors = s.actors ?? [];
  return {
    id: s.id ?? '',
    runtimeVersion: s.runtimeVersion ?? '',
    activeActorsCount: actors,
    registeredComponents: (s.components ?? []).map((c) => ({ name: c.name, type: c.type, version: c.version, capabilities: c.capabilities })),
    extendedMetadata: s.extended ?? {},
    subscriptions: (s.subscriptions ?? []).map((sub) => ({
      pubsubName: sub.pubsubname,
      topic: sub.topic,
      metadata: sub.metadata,
      rules: { rules: sub.rules },
      deadLetterTopic: sub.deadLetterTopic ?? '',
      type: sub.type === 'PROGRAMMATIC' || sub.type === 'STREAMING' ? sub.type : 'DECLARATIVE',
    })),
    actorRuntime: {
      runtimeStatus: s.actorRuntime?.runtimeStatus === 'RUNNING' ? 'RUNNING' : 'DISABLED',
      activeActors: s.actorRuntime?.activeActors ?? actors,
      hostReady: s.actorRuntime?.hostReady ?? false,
      placement: s.actorRuntime?.placement ?? '',
    },
    ...(s.workflows ? { workflows: { connectedWorkers: s.workflows.connectedWorkers ?? 0 } } : {}),
    ...(s.appConnectionProperties ? { appConnectionProperties: { port: s.appConnectionProperties.port, protocol: s.appConnectionProperties.protocol, channelAddress: s.appConnectionProperties.channelAddress, maxConcurrency: 0 } } : {}),
    enabledFeatures: [],
  };
}

export function metadataHandlers(metadata: RuntimeMetadata) {
  return {
    GetMetadata: (() => Promise.resolve(toWire(metadata.snapshot() as Snapshot))) satisfies Handler<object, GetMetadataResponse>,
    SetMetadata: ((req) => {
      metadata.set(req.key, req.value);
      return Promise.resolve({});
    }) satisfies Handler<SetMetadataRequest__Output, object>,
  };
}
