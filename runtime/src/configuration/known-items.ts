/**
 * What a watch's subscriber knows of its keys: the items read when the watch began, updated by every change it was
 * told. A store's watch that lost its change feed (a dropped LISTEN or pub/sub connection) re-reads the keys once
 * the feed is back and tells the subscriber what differs from this, deletions included: a change made while the
 * feed was down is reported late, never lost.
 */
import { DELETED_ITEM, type ConfigurationItem, type ConfigurationItems } from '../components/contracts/configuration-store.js';

const sameItem = (a: ConfigurationItem, b: ConfigurationItem): boolean =>
  a.value === b.value && a.version === b.version && JSON.stringify(a.metadata) === JSON.stringify(b.metadata);

export class KnownItems {
  readonly #items = new Map<string, ConfigurationItem>();

  /** Takes in what the subscriber is told: a deleted item is no longer known. */
  told(items: ConfigurationItems): void {
    for (const [key, item] of Object.entries(items)) {
      if (sameItem(item, DELETED_ITEM)) this.#items.delete(key);
      else this.#items.set(key, item);
    }
  }

  /**
   * The items of a fresh read (every watched key that exists) that the subscriber does not know: changed or new
   * ones, and known ones the read no longer has, as deleted. They become known.
   */
  changedIn(fresh: ConfigurationItems): ConfigurationItems {
    const changes: Record<string, ConfigurationItem> = {};
    for (const [key, item] of Object.entries(fresh)) {
      const known = this.#items.get(key);
      if (!known || !sameItem(known, item)) changes[key] = item;
    }
    for (const key of this.#items.keys()) if (!(key in fresh)) changes[key] = DELETED_ITEM;
    this.told(changes);
    return changes;
  }
}
