/**
 * A fuzz case is one HTTP request: method, URL, headers and body bytes, with a label saying how it
 * was made and, where the outcome is certain (a body over the limit, a wrong Content-Type), the
 * status it must get. Bodies are written with JSON.stringify, except for the parts no JavaScript
 * value can produce (a number like 1e400, a key spelled with \u escapes, 100 000 nested brackets):
 * those go in as raw-text markers that `serialize` splices in.
 */
import fc from 'fast-check';

export interface Expectation {
  status: number;
  /** The problem `code` too, when it is certain. */
  code?: string;
}

export interface FuzzCase {
  label: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The bytes sent; undefined sends no body at all. */
  payload: Buffer | undefined;
  /** The JSON value the payload was written from (for the check that no input is echoed). */
  body?: unknown;
  expect?: Expectation;
  /** A body that satisfies the route's schema: it must get past parsing and validation. */
  valid?: boolean;
}

const RAW_OPEN = '\uE000fuzz-raw:';
const RAW_CLOSE = '\uE001';
const RAW_MARKER = /"\uE000fuzz-raw:([A-Za-z0-9+/=]*)\uE001"/g;

/** A string that `serialize` replaces, quotes included, by `text` as it is. Works as a value or a key. */
export function raw(text: string): string {
  return `${RAW_OPEN}${Buffer.from(text, 'utf8').toString('base64')}${RAW_CLOSE}`;
}

export function serialize(value: unknown): string {
  const text = JSON.stringify(value) ?? '';
  return text.replace(RAW_MARKER, (_match, encoded: string) => Buffer.from(encoded, 'base64').toString('utf8'));
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

/** A request carrying `body` as JSON. */
export function jsonCase(label: string, url: string, body: unknown, expect?: Expectation): FuzzCase {
  return withSummary({
    label,
    method: 'POST',
    url,
    headers: { ...JSON_HEADERS },
    payload: Buffer.from(serialize(body), 'utf8'),
    body,
    ...(expect === undefined ? {} : { expect }),
  });
}

/** A request carrying a body that satisfies the route's schema (see FuzzCase.valid). */
export function validCase(label: string, url: string, body: unknown): FuzzCase {
  return withSummary({
    label,
    method: 'POST',
    url,
    headers: { ...JSON_HEADERS },
    payload: Buffer.from(serialize(body), 'utf8'),
    body,
    valid: true,
  });
}

export function rawCase(
  label: string,
  url: string,
  payload: Buffer | undefined,
  headers: Record<string, string> = { ...JSON_HEADERS },
  expect?: Expectation,
  method = 'POST',
): FuzzCase {
  return withSummary({ label, method, url, headers, payload, ...(expect === undefined ? {} : { expect }) });
}

/**
 * How fast-check prints a case in a failure report: the label, the headers and the start of the
 * body, not a megabyte of it.
 */
function withSummary(fuzzCase: FuzzCase): FuzzCase {
  Object.defineProperty(fuzzCase, fc.toStringMethod, { enumerable: false, value: () => describeCase(fuzzCase) });
  return fuzzCase;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The start of a body: as text when it is UTF-8 (cut at a character boundary), else byte by byte as Latin-1. */
function bodyStart(payload: Buffer): string {
  const start = payload.subarray(0, 400);
  for (let cut = start.byteLength; cut >= Math.max(0, start.byteLength - 3); cut--) {
    try {
      return `utf-8 ${JSON.stringify(strictUtf8.decode(start.subarray(0, cut)))}`;
    } catch {
      // A multi-byte character cut in two at the end, or not UTF-8 at all.
    }
  }
  return `latin-1 ${JSON.stringify(start.toString('latin1'))}`;
}

export function describeCase(fuzzCase: FuzzCase): string {
  const payload = fuzzCase.payload;
  const body =
    payload === undefined
      ? '(no body)'
      : `${payload.byteLength} bytes, ${bodyStart(payload)}${payload.byteLength > 400 ? '…' : ''}`;
  return `[${fuzzCase.label}] ${fuzzCase.method} ${fuzzCase.url} ${JSON.stringify(fuzzCase.headers)} ${body}`;
}
