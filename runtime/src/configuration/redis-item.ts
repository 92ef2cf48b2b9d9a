/** A `configuration.redis` item as Dapr's Redis configuration store keeps it: a string `<value>||<version>`. */
import type { ConfigurationItem } from '../components/contracts/configuration-store.js';

const SEPARATOR = '||';

/** Dapr's reading: the text before the first `||` is the value, the text after it (up to another `||`) the version. */
export function parseItem(stored: string): ConfigurationItem {
  const [value = '', version = ''] = stored.split(SEPARATOR);
  return { value, version, metadata: {} };
}
