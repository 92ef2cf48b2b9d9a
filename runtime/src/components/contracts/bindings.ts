/**
 * The bindings building block's interfaces: output bindings are invoked by the app (`/v1.0/bindings/<name>`),
 * input bindings deliver events to the app. Built-ins and pluggable components implement them.
 */
import type { Component } from '../registry.js';

export interface InvokeRequest {
  readonly operation: string;
  readonly data: Buffer;
  readonly metadata: Readonly<Record<string, string>>;
}

export interface InvokeResponse {
  readonly data: Buffer;
  readonly metadata: Readonly<Record<string, string>>;
  readonly contentType?: string;
}

export interface OutputBinding extends Component {
  /** The operations it supports (`create`, `get`, …); empty: any. */
  operations(): readonly string[];
  invoke(req: InvokeRequest): Promise<InvokeResponse>;
}

export interface InputEvent {
  readonly data: Buffer;
  readonly metadata: Readonly<Record<string, string>>;
  readonly contentType?: string;
}

/** Resolves with the app's answer (the event is done); rejects when the app did not take it. */
export type InputHandler = (event: InputEvent) => Promise<Buffer>;

export interface InputBinding extends Component {
  /** Starts delivering events to `handler` until the returned `close`. */
  read(handler: InputHandler): Promise<{ close(): Promise<void> }>;
}

/** A component that may serve either side (a pluggable socket) says which it serves. */
interface Directions {
  directions?(): { readonly input: boolean; readonly output: boolean };
}

export const isOutputBinding = (c: Component): c is OutputBinding =>
  typeof (c as Partial<OutputBinding>).invoke === 'function' && ((c as Directions).directions?.().output ?? true);
export const isInputBinding = (c: Component): c is InputBinding =>
  typeof (c as Partial<InputBinding>).read === 'function' && ((c as Directions).directions?.().input ?? true);
