/**
 * A multipart/form-data body read one part at a time as it arrives (busboy), for the routes that
 * stream their input: no hooks, no temporary files, and a file part's bytes reach the reader with
 * backpressure, so memory stays bounded whatever the body's length.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Busboy, type BusboyFileStream } from '@fastify/busboy';
import { ApiError } from './errors.ts';

export type FormPart =
  | { type: 'field'; name: string; value: string; truncated: boolean; mimeType: string }
  | { type: 'file'; name: string; stream: BusboyFileStream; mimeType: string };

export interface FormLimits {
  /** Parts read at most; one more is refused. */
  parts: number;
  /** Bytes of a field's value; a longer one is delivered cut, with `truncated` set. */
  fieldSize: number;
  /** Bytes of a file part; one byte more fails its stream with a 413. */
  fileSize: number;
}

const READ_AHEAD_BYTES = 256 * 1024;

/** A fault in the form itself, as the 400 every malformed body gets. */
export function malformedForm(detail: string): ApiError {
  return new ApiError('VALIDATION_FAILED', detail);
}

/** Reads a form from `body` (the request's payload stream) and hands out its parts in order. */
export class MultipartForm {
  readonly #body: Readable;
  readonly #queue: (FormPart | Error | null)[] = [];
  #waiting: ((item: FormPart | Error | null) => void) | undefined;
  #parser: ReturnType<typeof Busboy> | undefined;
  #file: BusboyFileStream | undefined;
  #failed: Error | undefined;

  constructor(body: Readable, headers: IncomingHttpHeaders, limits: FormLimits, fileTooLarge: () => Error) {
    this.#body = body;
    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({
        headers: headers as IncomingHttpHeaders & { 'content-type': string },
        // A file part is buffered up to this many bytes before busboy waits for its reader: larger
        // than a socket read, so that the parser is not paused and resumed at every one.
        fileHwm: READ_AHEAD_BYTES,
        limits: { parts: limits.parts, fieldSize: limits.fieldSize, fileSize: limits.fileSize, fieldNameSize: 100 },
      });
    } catch (error) {
      this.#fail(malformedForm(`the multipart body cannot be read: ${(error as Error).message}`));
      return;
    }
    this.#parser = parser;
    parser.on('field', (name, value, _nameTruncated, truncated, _encoding, mimeType) =>
      this.#deliver({ type: 'field', name, value, truncated, mimeType }),
    );
    parser.on('file', (name, stream, _filename, _encoding, mimeType) => {
      this.#file = stream;
      // busboy cuts a file at the limit and ends it as if it were whole: here it fails instead.
      stream.once('limit', () => stream.destroy(fileTooLarge()));
      // Errors reach the reader through the stream; this listener only keeps an unread part's
      // error (the body ending inside it) from being thrown as an unhandled event.
      stream.on('error', () => {});
      stream.once('end', () => {
        if (this.#file === stream) this.#file = undefined;
      });
      this.#deliver({ type: 'file', name, stream, mimeType });
    });
    parser.on('finish', () => this.#deliver(null));
    parser.on('error', (error: Error) =>
      this.#fail(malformedForm(`the multipart body is malformed: ${error.message}`)),
    );
    for (const event of ['partsLimit', 'filesLimit', 'fieldsLimit'])
      parser.on(event, () => this.#fail(malformedForm(`the form has more than ${limits.parts} parts`)));
    // A client that goes away mid-body leaves busboy waiting for bytes forever: the reader is told.
    body.once('close', () => {
      if (!body.readableEnded) this.#fail(malformedForm('the request ended before its multipart body'));
    });
    body.pipe(parser);
  }

  /** The next part, or undefined after the last; a malformed form rejects with a 4xx ApiError. */
  next(): Promise<FormPart | undefined> {
    const item = this.#failed ?? this.#queue.shift();
    if (item !== undefined) return settle(item);
    return new Promise<FormPart | Error | null>((resolve) => (this.#waiting = resolve)).then(settle);
  }

  /** Stops parsing: the rest of the body is left to the caller. */
  close(): void {
    if (this.#parser !== undefined) this.#body.unpipe(this.#parser);
  }

  #deliver(item: FormPart | Error | null): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting !== undefined) waiting(item);
    else this.#queue.push(item);
  }

  #fail(error: Error): void {
    if (this.#failed !== undefined) return;
    this.#failed = error;
    this.close();
    // A part being read would otherwise wait for bytes that will never come.
    this.#file?.destroy(error);
    this.#file = undefined;
    this.#deliver(error);
  }
}

function settle(item: FormPart | Error | null): Promise<FormPart | undefined> {
  if (item instanceof Error) return Promise.reject(item);
  return Promise.resolve(item ?? undefined);
}
