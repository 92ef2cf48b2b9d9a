/**
 * Methods of the runtime service whose building block svc does not have: UNIMPLEMENTED, naming the building
 * block, so a client learns why instead of reading a bare "method not implemented".
 */
import * as grpc from '@grpc/grpc-js';

const BLOCKS: Readonly<Record<string, string>> = {
  QueryStateAlpha1: 'state query (no svc state store supports queries)',
  UnregisterActorRemindersByType: 'actors: deleting reminders by type',
  ListActorReminders: 'actors: listing reminders',
  SubscribeActorEventsAlpha1: 'actors: streaming actor hosting',
  EncryptAlpha1: 'cryptography',
  DecryptAlpha1: 'cryptography',
  SubtleGetKeyAlpha1: 'cryptography',
  SubtleEncryptAlpha1: 'cryptography',
  SubtleDecryptAlpha1: 'cryptography',
  SubtleWrapKeyAlpha1: 'cryptography',
  SubtleUnwrapKeyAlpha1: 'cryptography',
  SubtleSignAlpha1: 'cryptography',
  SubtleVerifyAlpha1: 'cryptography',
  ConverseAlpha1: 'conversation',
  ConverseAlpha2: 'conversation',
};

/** Implementations of every method in `BLOCKS`, whatever its streaming shape. */
export function unimplementedMethods(): grpc.UntypedServiceImplementation {
  const impl: grpc.UntypedServiceImplementation = {};
  for (const [method, block] of Object.entries(BLOCKS)) {
    const status = { code: grpc.status.UNIMPLEMENTED, details: `svc has no ${block} building block (${method})` };
    impl[method] = (call: { emit?: (e: string, v: unknown) => void }, callback?: (err: unknown) => void) => {
      if (typeof callback === 'function') callback(status);
      else call.emit?.('error', status);
    };
  }
  return impl;
}
