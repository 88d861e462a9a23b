// PLACEHOLDER (being written this session): the rate-limit store a cluster worker shares through the primary.
import type { RateLimitStore, WindowCount } from '../rate-limit/store.ts';

export class IpcStore implements RateLimitStore {
  async consume(_key: string, _cost: number, _windowMs: number, _now: number): Promise<WindowCount> {
    throw new Error('WORKERS > 1: the cluster store is not implemented yet');
  }
  async close(): Promise<void> {}
}
