import * as grpc from '@grpc/grpc-js';
import { DEFAULT_PEER_MESSAGE_BYTES } from './peer-service.js';

/**
 * Channels to other sidecars' internal ports, one per address, reused by every call to it (each call is a stream
 * on the one HTTP/2 connection). Replica calls and service invocation both dial through one of these.
 */
export class SidecarChannels {
  readonly #clients = new Map<string, grpc.Client>();
  readonly #options: grpc.ChannelOptions;

  constructor(maxMessageBytes = DEFAULT_PEER_MESSAGE_BYTES) {
    this.#options = {
      'grpc.max_receive_message_length': maxMessageBytes,
      'grpc.max_send_message_length': maxMessageBytes,
      'grpc.keepalive_time_ms': 10_000,
      'grpc.keepalive_timeout_ms': 5_000,
      'grpc.keepalive_permit_without_calls': 1,
      // A sidecar that died must fail fast, not be retried for seconds inside one call: callers retry elsewhere.
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 1_000,
      // Channelz bookkeeping costs CPU on every call and nothing reads it.
      'grpc.enable_channelz': 0,
    };
  }

  client(address: string): grpc.Client {
    let client = this.#clients.get(address);
    if (!client) {
      client = new grpc.Client(address, grpc.credentials.createInsecure(), this.#options);
      this.#clients.set(address, client);
    }
    return client;
  }

  /** Closes the channel to a sidecar that went away. */
  forget(address: string): void {
    this.#clients.get(address)?.close();
    this.#clients.delete(address);
  }

  close(): void {
    for (const c of this.#clients.values()) c.close();
    this.#clients.clear();
  }
}
