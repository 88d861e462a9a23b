/** Reads a Node request stream to its end, refusing more than `limit` bytes without buffering them. */
import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

export async function readRawBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > limit) throw new BodyTooLargeError(`the body is over ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, length);
}
