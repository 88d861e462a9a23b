/**
 * The bodies of `/v2/stream/encrypt|decrypt`: a multipart form (`params`, then `data`) streamed
 * from a Web ReadableStream, and the answer's stream, whose abort by the server (the only way it
 * can report a failure after the first byte) becomes an error the reader cannot miss.
 */
import { CryptoNetworkError } from './errors.ts';

export interface StreamRequest {
  /** The 32-byte key, hex, as for `encrypt`. */
  key: string;
  /** The payload (or, to decrypt, the ciphertext): any length, read as it is sent. */
  data?: ReadableStream<Uint8Array> | Uint8Array;
}

/** A boundary that cannot occur by chance in the payload: 32 random hex digits. */
function randomBoundary(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `crypto-service-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** The multipart body and its content type; the payload is read only as the body is sent. */
export function multipartStream(request: StreamRequest): { body: ReadableStream<Uint8Array>; contentType: string } {
  const boundary = randomBoundary();
  const encoder = new TextEncoder();
  const head = encoder.encode(
    `--${boundary}\r\ncontent-disposition: form-data; name="params"\r\ncontent-type: application/json\r\n\r\n` +
      `${JSON.stringify({ key: request.key })}\r\n--${boundary}\r\n` +
      'content-disposition: form-data; name="data"; filename="data"\r\ncontent-type: application/octet-stream\r\n\r\n',
  );
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  const data = request.data;
  const reader =
    data === undefined || data instanceof Uint8Array
      ? new Blob([data ?? new Uint8Array(0)]).stream().getReader()
      : data.getReader();
  let stage: 'head' | 'data' | 'done' = 'head';
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (stage === 'head') {
        controller.enqueue(head);
        stage = 'data';
        return;
      }
      if (stage === 'done') return;
      const { done, value } = await reader.read();
      if (done) {
        controller.enqueue(tail);
        controller.close();
        stage = 'done';
      } else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * The answer's bytes. A connection cut before the end (the server aborts a stream that fails after
 * its first byte: a damaged or truncated ciphertext, a cut upload) errors the stream with a
 * CryptoNetworkError: what was read before is incomplete, and must be discarded.
 */
export function outputStream(url: string, body: ReadableStream<Uint8Array> | null): ReadableStream<Uint8Array> {
  const reader = (body ?? new Blob([]).stream()).getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(
          new CryptoNetworkError(
            url,
            new Error('the stream was aborted: the output is incomplete and must be discarded', { cause: error }),
          ),
        );
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
