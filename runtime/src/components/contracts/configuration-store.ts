/**
 * The configuration building block's interface (Dapr's configuration.Store): items the app reads by key and
 * watches for changes. Built-ins: `configuration.redis`, `configuration.postgresql`.
 */
import type { Component } from '../registry.js';

export interface ConfigurationItem {
  readonly value: string;
  readonly version: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/** How a deleted item is reported to subscribers. */
export const DELETED_ITEM: ConfigurationItem = Object.freeze({ value: '', version: '', metadata: {} });

/** Items by key. */
export type ConfigurationItems = Readonly<Record<string, ConfigurationItem>>;

export interface ConfigurationRequest {
  /** None: every key of the store. */
  readonly keys: readonly string[];
  /** The request's metadata (`metadata.<k>` query parameters over HTTP), for the store. */
  readonly metadata: Readonly<Record<string, string>>;
}

export interface ConfigurationWatch {
  close(): Promise<void>;
}

export interface ConfigurationStore extends Component {
  /** The items of the keys asked for that exist. */
  get(req: ConfigurationRequest): Promise<ConfigurationItems>;
  /**
   * Calls `onChange` with the items of the watched keys that changed, until `close`; resolves once the watch is
   * in place (a change made after that is reported). A deleted key is reported with an empty value and version.
   */
  watch(req: ConfigurationRequest, onChange: (items: ConfigurationItems) => void): Promise<ConfigurationWatch>;
}

export const isConfigurationStore = (c: Component): c is ConfigurationStore =>
  typeof (c as Partial<ConfigurationStore>).get === 'function' && typeof (c as Partial<ConfigurationStore>).watch === 'function';
