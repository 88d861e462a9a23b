/**
 * The rate-limit store of a cluster worker without Redis: the primary keeps the counts
 * (rate-limit-host.ts), so that the N worker processes of a host enforce ONE limit per client,
 * not N.
 *
 * Semantics:
 * - A client never gets more than RATE_LIMIT_MAX units per window from the whole host: every unit
 *   admitted was first counted by the primary.
 * - Leases: with its answer the primary may grant the worker a few of the client's units in
 *   advance (the worker never holds more than leaseCap(RATE_LIMIT_MAX) for one client, and only
 *   while the client is far from its limit; see rate-limit-host.ts). The worker admits its next
 *   requests from the lease, without a round trip, and asks for more when half of it is used, so
 *   that a busy client's requests never wait for the primary. Near the limit there are no leases:
 *   every request asks the primary, and the last units go one request at a time.
 * - The price: a leased unit the client never uses at that worker (its later requests all reach
 *   other workers) is lost for the window. A client can be refused up to (WORKERS − 1) ×
 *   leaseCap units before RATE_LIMIT_MAX; when RATE_LIMIT_MAX is at most 4 × WORKERS no lease
 *   is ever granted and the count is exact.
 * - The `RateLimit` header's remaining count is the host's, as of this worker's last answer from
 *   the primary, less what this worker has admitted from its lease since.
 * - Requests that need the primary during one turn of this worker's event loop (all those whose
 *   headers arrived in the same poll) travel in ONE message, answered in one message.
 * - The primary must answer within IPC_TIMEOUT_MS. If it does not (blocked, or gone), those
 *   requests are counted in a local MemoryStore instead (this process's own limit: up to WORKERS
 *   times more lenient while it lasts), and for the next LOCAL_FOR_MS every request is; then the
 *   primary is asked again. A request never waits longer than IPC_TIMEOUT_MS for its count.
 */
import type { FastifyBaseLogger } from 'fastify';
import { MemoryStore, type RateLimitStore, type WindowCount } from '../rate-limit/store.ts';
import { processChannel, type PrimaryChannel } from './channel.ts';
import { COUNT_FIELDS, MIN_LEASE_CAP } from './rate-limit-host.ts';
import { MessageType, isMessage } from './role.ts';

export const IPC_TIMEOUT_MS = 1000;
export const LOCAL_FOR_MS = 1000;

/** A request waiting for its count. */
interface Request {
  cost: number;
  windowMs: number;
  now: number;
  resolve(count: WindowCount): void;
}

/** What this worker knows of one client's window. */
interface Lease {
  /** Units the primary has counted for this worker and it has not admitted yet. */
  units: number;
  resetAt: number;
  /** The host's count (leases included) in the primary's last answer. */
  used: number;
  /** A lease has been asked for and not answered yet. */
  requesting: boolean;
  /** The primary granted no lease in this window: none will come (the count only grows). */
  noMoreLeases: boolean;
  /** This client's requests that arrived, with the lease used up, while more was asked for. */
  parked: Request[];
}

/** One entry of a batch: a request's units, or a lease refill alone (no request). */
interface PendingConsume {
  key: string;
  /** What the primary adds: the request's cost less what the lease paid for; 0 for a refill. */
  units: number;
  windowMs: number;
  now: number;
  leaseWanted: number;
  lease: Lease;
  request: Request | undefined;
}

export interface IpcStoreOptions {
  /** The channel to the primary; by default this process's, when it is one of our workers. */
  channel?: PrimaryChannel | undefined;
  timeoutMs?: number;
  localForMs?: number;
  /** Where the switch to local counting is reported (once per outage). */
  log?: FastifyBaseLogger;
  /** The most this worker holds for one client: leaseCap(RATE_LIMIT_MAX), as the primary grants. */
  leaseCap?: number;
}

export class IpcStore implements RateLimitStore {
  readonly #channel: PrimaryChannel | undefined;
  readonly #timeoutMs: number;
  readonly #localForMs: number;
  readonly #log: FastifyBaseLogger | undefined;
  readonly #leaseCap: number;
  /**
   * More lease is asked for once half of it is used: before it runs out, in steps of half a lease
   * (one round trip per leaseCap / 2 requests of a busy client).
   */
  readonly #refillBelow: number;
  readonly #unsubscribe: (() => void) | undefined;
  readonly #leases = new Map<string, Lease>();
  /** Batches sent and not answered yet, by message id. */
  readonly #inFlight = new Map<number, { consumes: PendingConsume[]; timer: NodeJS.Timeout }>();
  #queued: PendingConsume[] = [];
  #flushScheduled = false;
  #nextId = 1;
  #sweeper: NodeJS.Timeout | undefined;
  #local: MemoryStore | undefined;
  /** Until when requests are counted locally without asking the primary (after a timeout). */
  #localUntil = 0;
  #closed = false;

  constructor(options: IpcStoreOptions = {}) {
    this.#channel = 'channel' in options ? options.channel : processChannel();
    this.#timeoutMs = options.timeoutMs ?? IPC_TIMEOUT_MS;
    this.#localForMs = options.localForMs ?? LOCAL_FOR_MS;
    this.#log = options.log;
    this.#leaseCap = options.leaseCap ?? MIN_LEASE_CAP;
    this.#refillBelow = this.#leaseCap / 2;
    this.#unsubscribe = this.#channel?.subscribe((message) => this.#onMessage(message));
  }

  consume(key: string, cost: number, windowMs: number, now: number): Promise<WindowCount> {
    if (this.#isLocal()) return this.#localStore(windowMs).consume(key, cost, windowMs, now);
    this.#startSweeper(windowMs);
    let lease = this.#leases.get(key);
    if (lease === undefined) {
      lease = { units: 0, resetAt: 0, used: 0, requesting: false, noMoreLeases: false, parked: [] };
      this.#leases.set(key, lease);
    } else if (lease.units >= cost && lease.resetAt > now) {
      // The common case under load, without a promise to wait for.
      return Promise.resolve(this.#fromLease(key, lease, cost, windowMs, now));
    }
    const found = lease;
    return new Promise<WindowCount>((resolve) => this.#admit(key, found, { cost, windowMs, now, resolve }));
  }

  /** A request the lease covers, counted at once; undefined when it must wait (use `consume`). */
  consumeSync(key: string, cost: number, windowMs: number, now: number): WindowCount | undefined {
    if (this.#isLocal()) return this.#localStore(windowMs).consumeSync(key, cost, windowMs, now);
    const lease = this.#leases.get(key);
    if (lease === undefined || lease.units < cost || lease.resetAt <= now) return undefined;
    return this.#fromLease(key, lease, cost, windowMs, now);
  }

  #isLocal(): boolean {
    return this.#channel === undefined || this.#closed || Date.now() < this.#localUntil;
  }

  /** Admits a request from the lease (which covers it), and asks for more before it runs out. */
  #fromLease(key: string, lease: Lease, cost: number, windowMs: number, now: number): WindowCount {
    lease.units -= cost;
    if (lease.units < this.#refillBelow && !lease.requesting && !lease.noMoreLeases) {
      lease.requesting = true;
      this.#enqueue({
        key,
        units: 0,
        windowMs,
        now,
        leaseWanted: this.#leaseCap - lease.units,
        lease,
        request: undefined,
      });
    }
    return { used: lease.used - lease.units, resetAt: lease.resetAt };
  }

  /** From the lease if it covers the request; else behind the lease asked for; else from the primary. */
  #admit(key: string, lease: Lease, request: Request): void {
    if (this.#isLocal()) {
      void this.#localStore(request.windowMs)
        .consume(key, request.cost, request.windowMs, request.now)
        .then(request.resolve);
      return;
    }
    if (lease.resetAt <= request.now) {
      // Whatever was leased, or refused, belonged to a window that is over.
      lease.units = 0;
      lease.noMoreLeases = false;
    }
    if (lease.units >= request.cost) {
      request.resolve(this.#fromLease(key, lease, request.cost, request.windowMs, request.now));
      return;
    }
    if (lease.requesting) {
      lease.parked.push(request);
      return;
    }
    // What is left of the lease pays for part of this request; the primary counts the rest.
    const units = request.cost - lease.units;
    lease.units = 0;
    const leaseWanted = lease.noMoreLeases ? 0 : this.#leaseCap;
    if (leaseWanted > 0) lease.requesting = true;
    this.#enqueue({ key, units, windowMs: request.windowMs, now: request.now, leaseWanted, lease, request });
  }

  #enqueue(consume: PendingConsume): void {
    this.#queued.push(consume);
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      // setImmediate, not nextTick: it runs after every socket read of this poll phase, so that
      // all the requests that arrived together share one message.
      setImmediate(() => this.#flush());
    }
  }

  /** The lease asked for has arrived (or will not): the requests parked behind it try again. */
  #leaseSettled(key: string, lease: Lease): void {
    lease.requesting = false;
    const parked = lease.parked;
    lease.parked = [];
    for (const request of parked) this.#admit(key, lease, request);
  }

  #flush(): void {
    this.#flushScheduled = false;
    const consumes = this.#queued;
    this.#queued = [];
    if (consumes.length === 0) return;
    if (this.#isLocal()) {
      this.#countLocally(consumes);
      return;
    }
    const id = this.#nextId++;
    // Flat [key, units, windowMs, now, leaseWanted, key, …]: the cheapest shape to serialize.
    const ops: (string | number)[] = [];
    for (const { key, units, windowMs, now, leaseWanted } of consumes) ops.push(key, units, windowMs, now, leaseWanted);
    try {
      this.#channel!.send({ type: MessageType.rateLimitConsume, id, ops });
    } catch {
      this.#giveUp(consumes, 'the IPC channel to the primary is closed');
      return;
    }
    const timer = setTimeout(() => {
      if (this.#inFlight.delete(id)) this.#giveUp(consumes, `the primary did not answer within ${this.#timeoutMs} ms`);
    }, this.#timeoutMs);
    this.#inFlight.set(id, { consumes, timer });
  }

  #onMessage(message: unknown): void {
    if (!isMessage(message, MessageType.rateLimitCounts)) return;
    const batch = this.#inFlight.get(message.id);
    if (batch === undefined) return; // Too late: already counted locally.
    this.#inFlight.delete(message.id);
    clearTimeout(batch.timer);
    const counts = message.counts;
    if (!Array.isArray(counts) || counts.length !== batch.consumes.length * COUNT_FIELDS) {
      this.#giveUp(batch.consumes, 'the primary sent a malformed answer');
      return;
    }
    batch.consumes.forEach((consume, index) => {
      const [used, resetAt, leased] = counts.slice(index * COUNT_FIELDS, (index + 1) * COUNT_FIELDS) as [
        number,
        number,
        number,
      ];
      const { lease } = consume;
      if (resetAt !== lease.resetAt) {
        // The first answer in a new window: what was known of the old one no longer applies.
        lease.resetAt = resetAt;
        lease.units = 0;
        lease.used = 0;
        lease.noMoreLeases = false;
      }
      lease.units += leased;
      lease.used = Math.max(lease.used, used);
      // The leased units are not this request's: without them, `used` decides 200 or 429.
      consume.request?.resolve({ used: used - leased, resetAt });
      if (consume.leaseWanted > 0) {
        if (leased === 0) lease.noMoreLeases = true;
        this.#leaseSettled(consume.key, lease);
      }
    });
  }

  /** Counts these locally, and keeps counting locally for a while. */
  #giveUp(consumes: PendingConsume[], reason: string): void {
    if (Date.now() >= this.#localUntil && !this.#closed) {
      this.#log?.warn(
        { localForMs: this.#localForMs },
        `rate limit: ${reason}; counting in this process alone for now`,
      );
    }
    this.#localUntil = Date.now() + this.#localForMs;
    this.#countLocally(consumes);
  }

  #countLocally(consumes: PendingConsume[]): void {
    for (const { key, units, windowMs, now, leaseWanted, lease, request } of consumes) {
      if (request !== undefined)
        void this.#localStore(windowMs).consume(key, units, windowMs, now).then(request.resolve);
      if (leaseWanted > 0) this.#leaseSettled(key, lease);
    }
  }

  #localStore(windowMs: number): MemoryStore {
    this.#local ??= new MemoryStore(windowMs);
    return this.#local;
  }

  /** Forgets the leases of windows that are over, once a window, so that memory stays bounded. */
  #startSweeper(windowMs: number): void {
    if (this.#sweeper !== undefined) return;
    this.#sweeper = setInterval(() => {
      const now = Date.now();
      for (const [key, lease] of this.#leases) {
        if (lease.resetAt <= now && !lease.requesting) this.#leases.delete(key);
      }
    }, windowMs);
    this.#sweeper.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#unsubscribe?.();
    clearInterval(this.#sweeper);
    // Nothing may be left waiting: whatever is unanswered is counted here.
    for (const [id, batch] of this.#inFlight) {
      clearTimeout(batch.timer);
      this.#inFlight.delete(id);
      this.#countLocally(batch.consumes);
    }
    this.#countLocally(this.#queued.splice(0));
    for (const [key, lease] of this.#leases) this.#leaseSettled(key, lease);
    this.#leases.clear();
    await this.#local?.close();
  }
}
