/**
 * Raw HTTP/1.1 over a TCP socket, for what app.inject cannot reproduce: a Content-Length that
 * disagrees with the body, a body cut short by the client, chunked framing (valid and broken),
 * pipelined requests, header syntax Node's parser refuses, a client that stalls. The request is
 * written byte for byte; every response that comes back is parsed.
 */
import net from 'node:net';
import type { Answer } from './oracle.ts';

export interface WireCase {
  label: string;
  bytes: Buffer;
  /** Send FIN after the bytes (a client that has nothing more to say); otherwise the client stalls. */
  halfClose: boolean;
  /** The path the request aims at (for the oracle's /v1 checks); empty when there is none. */
  path: string;
  /** The status the (first) response must have, when it is certain. */
  expectStatus?: number;
  /** The server may close the connection without any response (bytes it cannot frame). */
  mayCloseSilently?: boolean;
}

export interface WireResult {
  responses: Answer[];
  /** Bytes after the last complete response (a torn response is a fault). */
  leftover: Buffer;
  error?: string;
}

/** Complete responses in `data` (1xx interim responses skipped), and the bytes after them. */
export function parseResponses(data: Buffer): { responses: Answer[]; rest: Buffer } {
  const responses: Answer[] = [];
  let rest = data;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) break;
    const [statusLine = '', ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
    if (Number.isNaN(status)) break;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let bodyEnd: number;
    let body: Buffer;
    if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
      const chunks: Buffer[] = [];
      let at = end + 4;
      let complete = false;
      for (;;) {
        const lineEnd = rest.indexOf('\r\n', at);
        if (lineEnd === -1) break;
        const size = Number.parseInt(rest.subarray(at, lineEnd).toString('latin1'), 16);
        if (Number.isNaN(size) || rest.byteLength < lineEnd + 2 + size + 2) break;
        if (size === 0) {
          const trailerEnd = rest.indexOf('\r\n', lineEnd + 2);
          if (trailerEnd === -1) break;
          at = trailerEnd + 2;
          complete = true;
          break;
        }
        chunks.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
      if (!complete) break;
      bodyEnd = at;
      body = Buffer.concat(chunks);
    } else {
      const length = Number(headers['content-length'] ?? 0);
      if (rest.byteLength < end + 4 + length) break;
      bodyEnd = end + 4 + length;
      body = rest.subarray(end + 4, bodyEnd);
    }
    if (status >= 200) responses.push({ status, headers, body: body.toString('utf8') });
    rest = rest.subarray(bodyEnd);
  }
  return { responses, rest };
}

/**
 * Opens a connection, writes the case, and collects what comes back until the server closes the
 * connection (every case asks for `Connection: close`, or is one the server must drop) or
 * `timeoutMs` passes.
 */
export function sendWire(port: number, wireCase: WireCase, timeoutMs: number): Promise<WireResult> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const chunks: Buffer[] = [];
    let error: string | undefined;
    const timer = setTimeout(() => {
      error = `the connection was still open after ${timeoutMs} ms`;
      socket.destroy();
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (cause: NodeJS.ErrnoException) => {
      // A reset after the server has answered and closed is how some refusals end; keep the answer.
      if (cause.code !== 'ECONNRESET' && cause.code !== 'EPIPE') error = cause.code ?? cause.message;
    });
    socket.once('close', () => {
      clearTimeout(timer);
      const { responses, rest } = parseResponses(Buffer.concat(chunks));
      resolve({ responses, leftover: rest, ...(error === undefined ? {} : { error }) });
    });
    socket.write(wireCase.bytes);
    if (wireCase.halfClose) socket.end();
  });
}
