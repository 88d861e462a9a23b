/**
 * Remembers the deliveries already accepted within the replay window, so that a captured request
 * sent again before its timestamp expires is refused too.
 */
export interface ReplayCache {
  /** Records `id` for `ttlSeconds` and says whether it was already recorded (a replay). */
  seen(id: string, ttlSeconds: number): boolean | Promise<boolean>;
}

/** A replay cache in this process's memory: enough for one instance; share a store across several. */
export function memoryReplayCache(): ReplayCache {
  const expiries = new Map<string, number>();
  return {
    seen(id, ttlSeconds) {
      const now = Date.now();
      // Entries share one TTL, so insertion order is expiry order: drop expired ones from the front.
      for (const [oldest, expiresAt] of expiries) {
        if (expiresAt > now) break;
        expiries.delete(oldest);
      }
      const expiresAt = expiries.get(id);
      if (expiresAt !== undefined && expiresAt > now) return true;
      expiries.delete(id);
      expiries.set(id, now + ttlSeconds * 1000);
      return false;
    },
  };
}
