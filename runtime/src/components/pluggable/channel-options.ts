import type { ChannelOptions } from '@grpc/grpc-js';

/** gRPC target of a Unix socket (absolute path). */
export function unixTarget(socketPath: string): string {
  return `unix://${socketPath}`;
}

/** Requests to components: a bulk save of several large values must not hit grpc's 4 MiB default. */
export const COMPONENT_MAX_REQUEST_BYTES = 256 * 1024 * 1024;

/**
 * A component restarting on its socket should be reachable again within about a second, not after grpc's
 * default backoff (up to two minutes). Replies are capped at `maxReplyBytes` as they arrive (reply-budget.ts).
 */
export function componentChannelOptions(maxReplyBytes: number): ChannelOptions {
  return {
    'grpc.initial_reconnect_backoff_ms': 100,
    'grpc.max_reconnect_backoff_ms': 1000,
    'grpc.max_receive_message_length': maxReplyBytes,
    'grpc.max_send_message_length': COMPONENT_MAX_REQUEST_BYTES,
    // Channelz bookkeeping (call counters and timestamps on the channel, subchannel and transport) costs CPU on
    // every call and nothing reads it.
    'grpc.enable_channelz': 0,
  };
}
