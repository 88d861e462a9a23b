/**
 * A load generator that takes as little of the machine as it can, for the cluster comparison
 * (bench/load.ts --generator light): on a 2-core machine autocannon's CPU comes out of the very
 * cores a cluster is meant to fill. Raw keep-alive sockets, requests written several at a time from
 * one prepared buffer, the sockets read once a millisecond rather than on every answer, and each
 * answer read only as far as its status line and Content-Length. Same options and result as
 * lib/autocannon.ts.
 *
 * - Answers wait in the kernel for up to a millisecond before they are read, so it needs many
 *   requests in flight, and its latencies are mostly that wait.
 * - An answer without a Content-Length, or not HTTP/1.1, counts as an error and its connection is
 *   reopened, so a server that answered differently shows up as errors, never as throughput.
 * - At the end the sockets are destroyed: answers in flight are neither counted nor errors.
 */
import { connect, type Socket } from 'node:net';
import type { LoadOptions, LoadResult } from './autocannon.ts';
import { latencySummary } from './common.ts';

const HEADER_END = Buffer.from('\r\n\r\n');
const STATUS_LINE_START = Buffer.from('HTTP/1.1 ');
// Node's http module writes header names in lower case; one written otherwise counts as an error.
const CONTENT_LENGTH = Buffer.from('\r\ncontent-length:');
const DIGIT_0 = 0x30;

/** The decimal number from `start` (after spaces) to `end`, a space or CR; -1 if there is none. */
function readNumber(bytes: Buffer, start: number, end: number): number {
  let at = start;
  while (at < end && bytes[at] === 0x20) at += 1;
  let value = -1;
  for (let digit; at < end && (digit = (bytes[at] as number) - DIGIT_0) >= 0 && digit <= 9; at += 1)
    value = Math.max(value, 0) * 10 + digit;
  return at < end && bytes[at] !== 0x0d && bytes[at] !== 0x20 ? -1 : value;
}

export function runLightLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.url);
  const depth = options.pipelining ?? 1;
  const body = Buffer.from(options.body);
  const head = [`POST ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`, `content-length: ${body.length}`];
  for (const [name, value] of Object.entries(options.headers)) head.push(`${name}: ${value}`);
  const request = Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), body]);
  // Up to `depth` requests back to back, so that any number of them goes out in one write.
  const batch = Buffer.concat(Array.from({ length: depth }, () => request));
  // A connection is refilled once half its window has been answered, so that one write carries
  // several requests; the window never falls below half, so the server is never left without work.
  const refillAt = Math.floor(depth / 2);
  const latencies: number[] = [];
  const statusCounts: Record<string, number> = {};
  let answers = 0;
  let errors = 0;
  let running = true;
  const sockets = new Set<Socket>();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();

  function open(): void {
    // Send times of the requests in flight, oldest first (a ring of `depth` entries).
    const sentAt = new Float64Array(depth);
    let oldest = 0;
    let inFlight = 0;
    // The start of an answer that the last read cut off (copied: the read buffer is reused).
    let pending: Buffer | undefined;

    const send = (count: number) => {
      const now = performance.now();
      for (let i = 0; i < count; i++) sentAt[(oldest + inFlight + i) % depth] = now;
      inFlight += count;
      socket.write(count === depth ? batch : batch.subarray(0, count * request.length));
    };
    /** Reads every whole answer in `bytes`; returns where the first incomplete one starts, or -1 on a protocol error. */
    const readAnswers = (bytes: Buffer): number => {
      let offset = 0;
      const now = performance.now();
      while (offset < bytes.length) {
        const headerEnd = bytes.indexOf(HEADER_END, offset);
        if (headerEnd < 0) break;
        const at = offset + STATUS_LINE_START.length;
        if (bytes.compare(STATUS_LINE_START, 0, STATUS_LINE_START.length, offset, at) !== 0) return -1;
        const lengthAt = bytes.indexOf(CONTENT_LENGTH, offset);
        if (lengthAt < 0 || lengthAt > headerEnd) return -1;
        const length = readNumber(bytes, lengthAt + CONTENT_LENGTH.length, headerEnd);
        if (length < 0) return -1;
        const end = headerEnd + HEADER_END.length + length;
        if (end > bytes.length) break;
        const status = readNumber(bytes, at, at + 3);
        answers += 1;
        statusCounts[status] = (statusCounts[status] ?? 0) + 1;
        if (status >= 200 && status < 300) latencies.push(now - (sentAt[oldest] as number));
        oldest = (oldest + 1) % depth;
        inFlight -= 1;
        offset = end;
      }
      return offset;
    };

    const socket = connect({
      host: url.hostname,
      port: Number(url.port || 80),
      noDelay: true,
      // Node reads into this one buffer and calls back: no Buffer and no stream event per read.
      // Returning false stops reading until the reader's next clock tick (below) resumes the socket.
      onread: {
        buffer: Buffer.allocUnsafe(256 * 1024),
        callback: (length: number, buffer: Uint8Array) => {
          const read = Buffer.from(buffer.buffer, buffer.byteOffset, length);
          const bytes = pending === undefined ? read : Buffer.concat([pending, read]);
          const offset = readAnswers(bytes);
          if (offset < 0) {
            errors += 1;
            socket.destroy();
            return false;
          }
          pending = offset < bytes.length ? Buffer.from(bytes.subarray(offset)) : undefined;
          if (running && inFlight <= refillAt) send(depth - inFlight);
          return false;
        },
      },
    });
    sockets.add(socket);
    socket.on('connect', () => send(depth));
    socket.on('error', () => void (errors += 1));
    // A connection the server closed is replaced; after an error, a little later, so that a
    // server that is gone costs the rest of the run errors, not a loop of connection attempts.
    socket.on('close', (hadError) => {
      sockets.delete(socket);
      if (running) setTimeout(() => running && open(), hadError ? 10 : 0);
    });
  }

  for (let i = 0; i < options.connections; i++) open();
  // The sockets are read on a clock, not on every answer: a read per answer would cost the
  // generator a wake-up, a system call and a callback each time, which is most of what autocannon
  // spends. Between ticks the server's answers wait in the kernel's socket buffer.
  const reader = setInterval(() => {
    for (const socket of sockets) socket.resume();
  }, 1);
  return new Promise((resolve) => {
    setTimeout(() => {
      running = false;
      clearInterval(reader);
      const seconds = (performance.now() - started) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      for (const socket of sockets) socket.destroy();
      resolve({
        requestsPerSecond: latencies.length / seconds,
        answers,
        latency: latencySummary(latencies),
        statusCounts,
        errors,
        generatorCpuUs: cpu.user + cpu.system,
      });
    }, options.duration * 1000);
  });
}
