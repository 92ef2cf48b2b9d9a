import type { ChannelOptions } from '@grpc/grpc-js';

/** gRPC target of a Unix socket (absolute path). */
export function unixTarget(socketPath: string): string {
  return `unix://${socketPath}`;
}

/**
 * A component restarting on its socket should be reachable again within about a second, not after grpc's
 * default backoff (up to two minutes).
 */
export const COMPONENT_CHANNEL_OPTIONS: ChannelOptions = {
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 1000,
};
