/**
 * MAX_CONNECTIONS_PER_IP: at most that many open connections from one client address (an IPv6
 * client by its prefix, as the rate limit keys it); a connection over the cap is closed at once.
 * Slow clients can otherwise hold sockets (file descriptors) for up to HEADERS_TIMEOUT_MS each,
 * and one address could hold them all. The address is the socket's peer: behind a proxy every
 * connection comes from the proxy, so the cap must then exceed the proxy's connection pool.
 */
import type { Server } from 'node:net';
import { addressKey } from './rate-limit/client-address.ts';

export interface ConnectionCapOptions {
  maxPerAddress: number;
  ipv6PrefixLength: number;
  /** Told of each refused connection (the caller logs at a bounded rate). */
  onRefused?: (address: string) => void;
}

/** Caps the open connections per client address of `server`; returns the live counts (tests read them). */
export function capConnectionsPerAddress(server: Server, options: ConnectionCapOptions): Map<string, number> {
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    const key = addressKey(socket.remoteAddress ?? '', options.ipv6PrefixLength) ?? 'unknown';
    const count = open.get(key) ?? 0;
    if (count >= options.maxPerAddress) {
      options.onRefused?.(key);
      socket.destroy();
      return;
    }
    open.set(key, count + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left === 0) open.delete(key);
      else open.set(key, left);
    });
  });
  return open;
}
