/**
 * A worker's IPC channel to the primary, behind a small interface so that the rate-limit store and
 * the metrics scrape can be tested against a fake primary in one process.
 */
import { isClusterWorker, type Message } from './role.ts';

export interface PrimaryChannel {
  /** Sends a message; throws when the channel is closed (the primary is gone). */
  send(message: Message): void;
  /** Calls `listener` with every message from the primary; returns the unsubscribe function. */
  subscribe(listener: (message: unknown) => void): () => void;
}

function ignoreError(): void {}

/** This process's channel to the primary, or undefined outside a worker forked by cluster/primary.ts. */
export function processChannel(): PrimaryChannel | undefined {
  if (!isClusterWorker()) return undefined;
  return {
    send(message) {
      if (process.connected !== true || process.send === undefined)
        throw new Error('the IPC channel to the primary is closed');
      // A callback, so that a write that fails later (the primary died meanwhile) is dropped here
      // rather than emitted as an 'error' event on process, which nothing listens to: the caller's
      // own time limit covers the lost message.
      process.send(message, undefined, {}, ignoreError);
    },
    subscribe(listener) {
      process.on('message', listener);
      return () => void process.off('message', listener);
    },
  };
}
