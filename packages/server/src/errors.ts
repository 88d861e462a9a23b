/**
 * Every error becomes an RFC 9457 problem here, in one place: the mapping from
 * error to stable code is written once. 500s carry a generic detail; their cause goes to the log.
 */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CryptoError, INSECURE_ALGORITHMS, StacklessError } from '@crypto-service/core';
import {
  ERROR_CODES,
  HEX_PATTERN,
  PROBLEM_CONTENT_TYPE,
  V1_EMAIL_PATTERN,
  V1_NAME_PATTERN,
  problemType,
  type ErrorCode,
  type FieldError,
  type Problem,
} from '@crypto-service/protocol';

/**
 * An error raised by the server's own layers (authentication, rate limiting, readiness, full work
 * queues, a malformed body): an answer to the client, not a fault of the server. Like core's
 * CryptoError it carries no stack trace (StacklessError): nothing reads one (handleError turns it
 * into a problem and logs nothing), and building one is paid on every 401, 429 and 503 of a
 * flood, which is when the event loop can least afford it (docs/performance.md, "Refusals").
 */
export class ApiError extends StacklessError {
  readonly code: ErrorCode;
  readonly headers: Record<string, string | string[]>;
  readonly errors: FieldError[] | undefined;

  constructor(
    code: ErrorCode,
    detail: string,
    options: { headers?: Record<string, string | string[]>; errors?: FieldError[] } = {},
  ) {
    super(detail);
    this.name = 'ApiError';
    this.code = code;
    this.headers = options.headers ?? {};
    this.errors = options.errors;
  }
}

/** The request path without its query string: `instance` never echoes a query (it may hold a secret). */
export function instanceOf(request: FastifyRequest): string {
  const url = request.raw.url ?? request.url;
  const path = url.split('?', 1)[0] ?? '/';
  return path.length > 256 ? `${path.slice(0, 256)}…` : path;
}

export function buildProblem(code: ErrorCode, detail: string, instance: string, errors?: FieldError[]): Problem {
  const { status, title } = ERROR_CODES[code];
  const problem: Problem = { type: problemType(code), title, status, detail, instance, error: detail, code };
  if (errors !== undefined && errors.length > 0) problem.errors = errors;
  return problem;
}

export function sendProblem(
  reply: FastifyReply,
  request: FastifyRequest,
  code: ErrorCode,
  detail: string,
  errors?: FieldError[],
): FastifyReply {
  const problem = buildProblem(code, detail, instanceOf(request), errors);
  return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(problem);
}

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** An identifier that is safe to repeat back: short and plain. Anything else is not echoed. */
function printable(value: unknown): string | undefined {
  return typeof value === 'string' && /^[A-Za-z0-9._/-]{1,40}$/.test(value) ? value : undefined;
}

function fieldOf(issue: AjvIssue): string {
  if (issue.keyword === 'required' && typeof issue.params.missingProperty === 'string') {
    return `${issue.instancePath}/${issue.params.missingProperty}`;
  }
  if (issue.keyword === 'additionalProperties' && typeof issue.params.additionalProperty === 'string') {
    return `${issue.instancePath}/${issue.params.additionalProperty}`;
  }
  return issue.instancePath === '' ? '/' : issue.instancePath;
}

/** Patterns in words: a client is told the encoding a field expects, never a regular expression. */
const PATTERN_WORDS: Record<string, string> = {
  [HEX_PATTERN]: 'must be hex: an even number of 0-9 a-f characters',
  [V1_NAME_PATTERN]: 'must not contain angle brackets or control characters',
  [V1_EMAIL_PATTERN]: 'must be an e-mail address',
};

function messageOf(issue: AjvIssue): string {
  if (issue.keyword === 'additionalProperties') return 'is not a known field';
  if (issue.keyword === 'required') return 'is required';
  if (issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues)) {
    return `must be one of: ${issue.params.allowedValues.join(', ')}`;
  }
  if (issue.keyword === 'pattern') {
    return PATTERN_WORDS[String(issue.params.pattern)] ?? 'is not in the form this field accepts';
  }
  return issue.message ?? 'is invalid';
}

/** The longest unknown field name worth a guess, and how many unknown fields one answer names. */
const MAX_GUESSED_NAME = 64;
const MAX_UNKNOWN_NAMED = 3;

/** Levenshtein distance, case-insensitive: how far an unknown field name is from a known one. */
export function editDistance(a: string, b: string): number {
  const left = a.toLowerCase();
  const right = b.toLowerCase();
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let i = 1; i <= left.length; i++) {
    const current = [i];
    for (let j = 1; j <= right.length; j++) {
      const substitution = previous[j - 1]! + (left[i - 1] === right[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[right.length]!;
}

/**
 * The known field closest to an unknown one, or undefined when none fits. Fields the body already
 * holds are never suggested; a required field it lacks always may be (the unknown field is likely
 * its other name); any other field only when at most half of the longer name has to change.
 */
export function closestField(
  unknown: string,
  known: readonly string[],
  present: ReadonlySet<string>,
  required: ReadonlySet<string> = new Set(),
): string | undefined {
  // The distance costs the product of the two lengths: a name longer than any field gets no guess.
  if (unknown.length > MAX_GUESSED_NAME) return undefined;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    if (present.has(candidate)) continue;
    const distance = editDistance(unknown, candidate);
    const near = distance <= Math.floor(Math.max(unknown.length, candidate.length) / 2);
    if (distance < bestDistance && (near || required.has(candidate))) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

interface ObjectSchema {
  properties?: Record<string, unknown>;
  required?: string[];
  additionalProperties?: unknown;
  items?: unknown;
}

/** The schema and the value at a JSON pointer of the body, through properties and array items only. */
function objectAt(
  schema: unknown,
  body: unknown,
  pointer: string,
): { schema: ObjectSchema; value: object } | undefined {
  let node = schema as ObjectSchema | undefined;
  let value = body;
  for (const segment of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const key = segment.replaceAll('~1', '/').replaceAll('~0', '~');
    node = (node?.properties?.[key] ?? (Array.isArray(value) ? node?.items : undefined)) as ObjectSchema | undefined;
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  }
  if (node?.properties === undefined || typeof value !== 'object' || value === null || Array.isArray(value)) {
    return undefined;
  }
  return { schema: node, value };
}

interface Fault {
  field: string;
  message: string;
  /** The fault as it reads in `detail`. */
  sentence: string;
}

function plainFault(field: string, message: string): Fault {
  return { field, message, sentence: `${field} ${message}` };
}

function unknownField(pointer: string, name: string, schema: ObjectSchema, value: object): Fault {
  const known = Object.keys(schema.properties ?? {});
  // A field holding its schema default may have been filled in by the validator, not sent.
  const sent = Object.entries(value).filter(
    ([key, held]) => (schema.properties?.[key] as { default?: unknown } | undefined)?.default !== held,
  );
  const guess = closestField(name, known, new Set(sent.map(([key]) => key)), new Set(schema.required ?? []));
  const hint = guess === undefined ? '' : `; did you mean ${pointer}/${guess}?`;
  return {
    field: `${pointer}/${name}`,
    message: `is not a known field${hint}`,
    sentence: `unknown field ${pointer}/${name}${hint}`,
  };
}

/**
 * The faults of a request body in the order worth reading. Ajv stops at its first issue, and it
 * checks `required` before unknown fields: a missing field is then often the consequence of a
 * misspelt one, so the unknown fields of the same object are found here and reported first.
 */
function faultsOf(issues: AjvIssue[], schema: unknown, body: unknown): Fault[] {
  const faults: Fault[] = [];
  for (const issue of issues) {
    const found = schema === undefined ? undefined : objectAt(schema, body, issue.instancePath);
    if (issue.keyword === 'additionalProperties' && typeof issue.params.additionalProperty === 'string') {
      if (found !== undefined) {
        faults.push(unknownField(issue.instancePath, issue.params.additionalProperty, found.schema, found.value));
        continue;
      }
    } else if (issue.keyword === 'required' && found?.schema.additionalProperties === false) {
      const known = found.schema.properties ?? {};
      const unknown = Object.keys(found.value).filter((name) => !Object.hasOwn(known, name));
      for (const name of unknown.slice(0, MAX_UNKNOWN_NAMED)) {
        faults.push(unknownField(issue.instancePath, name, found.schema, found.value));
      }
    }
    faults.push(plainFault(fieldOf(issue), messageOf(issue)));
  }
  return faults;
}

/** A schema violation, or an unknown algorithm when the only fault is the `algorithm` enum. */
function validationProblem(
  issues: AjvIssue[],
  context: string,
  body: unknown,
  bodySchema: unknown,
): { code: ErrorCode; detail: string; errors: FieldError[] } {
  const faults =
    context === 'body'
      ? faultsOf(issues, bodySchema, body)
      : issues.map((issue) => plainFault(`${context}${fieldOf(issue)}`, messageOf(issue)));
  const errors = faults.map(({ field, message }) => ({ field, message }));
  const first = issues[0];
  if (first !== undefined && first.keyword === 'enum' && first.instancePath.endsWith('/algorithm')) {
    const value = printable((body as Record<string, unknown> | undefined)?.algorithm);
    const named = value === undefined ? 'this algorithm' : `'${value}'`;
    const detail =
      value !== undefined && INSECURE_ALGORITHMS.has(value.toLowerCase())
        ? `${named} is insecure and not supported; see GET /v2/algorithms`
        : `unsupported algorithm ${named}; see GET /v2/algorithms`;
    return { code: 'UNSUPPORTED_ALGORITHM', detail, errors };
  }
  const summary = faults.map((fault) => fault.sentence).join('; ');
  return { code: 'VALIDATION_FAILED', detail: `invalid request: ${summary}`, errors };
}

/**
 * Fastify's schemaErrorFormatter: the error a request that fails its route's schema is thrown as.
 * Fastify's default builds a message from every issue and a `new Error` with a stack; handleError
 * reads neither (it builds the problem from the issues Fastify attaches as `validation`), so this
 * one is stackless, with a fixed message: a flood of invalid requests costs no stack captures.
 */
export function schemaValidationError(): Error {
  return new StacklessError('the request does not match its schema');
}

/**
 * Fastify's own errors, by code (a body over its limit is answered above, with the limit). Anything
 * else with a 4xx status falls back on the status.
 */
const FASTIFY_CODES: Record<string, { code: ErrorCode; detail: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    detail: 'the request body must be application/json',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'MALFORMED_JSON', detail: 'the request body is empty; send a JSON object' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'MALFORMED_JSON', detail: 'the request body is not valid JSON' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'MALFORMED_JSON',
    detail: 'the request body does not match its Content-Length',
  },
};

function byStatus(status: number): ErrorCode {
  const match = Object.entries(ERROR_CODES).find(([, entry]) => entry.status === status);
  return (match?.[0] as ErrorCode | undefined) ?? 'VALIDATION_FAILED';
}

/** A problem to answer with, and the headers that go with it (a 429's Retry-After). */
export interface ProblemAnswer {
  problem: Problem;
  headers: Record<string, string | string[]> | undefined;
}

function answer(request: FastifyRequest, code: ErrorCode, detail: string, errors?: FieldError[]): ProblemAnswer {
  return { problem: buildProblem(code, detail, instanceOf(request), errors), headers: undefined };
}

/**
 * The problem `error` is answered with, for a request whose body (as validated against
 * `bodySchema`) is `body`: what handleError sends, and what a batch item's entry holds.
 */
export function problemOf(
  error: FastifyError,
  request: FastifyRequest,
  body: unknown = request.body,
  bodySchema: unknown = request.routeOptions.schema?.body,
): ProblemAnswer {
  if (error instanceof ApiError) {
    return { ...answer(request, error.code, error.message, error.errors), headers: error.headers };
  }
  if (error instanceof CryptoError) {
    const errors = error.field === undefined ? undefined : [{ field: error.field, message: error.message }];
    return answer(request, error.code, error.message, errors);
  }
  if (error.validation !== undefined) {
    const { code, detail, errors } = validationProblem(
      error.validation as AjvIssue[],
      error.validationContext ?? 'body',
      body,
      bodySchema,
    );
    return answer(request, code, detail, errors);
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    const limit = request.routeOptions.bodyLimit;
    return answer(
      request,
      'PAYLOAD_TOO_LARGE',
      `the request body is larger than the limit of ${limit} bytes (BODY_LIMIT_BYTES)`,
    );
  }
  const known = FASTIFY_CODES[error.code];
  if (known !== undefined) return answer(request, known.code, known.detail);
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    // Fastify's remaining client errors (a bad URL, a forbidden __proto__ key): their status is
    // right, but their message may quote the request, so a fixed text goes out instead.
    request.log.info({ code: error.code }, 'client error');
    return answer(request, byStatus(status), 'the request could not be processed');
  }
  request.log.error({ err: error }, 'unexpected failure');
  return answer(request, 'INTERNAL_ERROR', 'an unexpected error occurred; it has been logged');
}

/** The error handler of the whole app: everything thrown anywhere ends here as a problem. */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { problem, headers } = problemOf(error, request);
  if (headers !== undefined) reply.headers(headers);
  return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(problem);
}

/**
 * Errors that Node raises on a connection before any request reaches Fastify: a client that sends
 * its headers or its body too slowly (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS), headers over Node's
 * limit, bytes that are not HTTP. Fastify's default answers with its own JSON; these are problems
 * like every other error, with the security headers, and `Connection: close` (the socket is
 * destroyed after). Written only while nothing has been written on the socket, as Node itself does,
 * so a late timeout can never append a second response to one already sent. The log line carries
 * the error code only: the error object holds the raw bytes received, credentials included.
 */
const CLIENT_ERRORS: Record<string, { code: ErrorCode; detail: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    code: 'REQUEST_TIMEOUT',
    detail: 'the request did not arrive in time (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS)',
  },
  HPE_HEADER_OVERFLOW: { code: 'HEADERS_TOO_LARGE', detail: 'the request headers are larger than the server accepts' },
};
const NOT_HTTP = { code: 'VALIDATION_FAILED', detail: 'the request is not valid HTTP/1.1' } as const;

export function clientErrorHandler(securityHeaders: Record<string, string>) {
  const fixed = Object.entries(securityHeaders)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return function handleClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const { code, detail } = CLIENT_ERRORS[error.code ?? ''] ?? NOT_HTTP;
    this.log.debug({ code: error.code }, 'client connection error');
    if (socket.writable && socket.bytesWritten === 0) {
      const { status, title } = ERROR_CODES[code];
      // No instance: the request line may never have arrived.
      const body = JSON.stringify(buildProblem(code, detail, ''));
      socket.write(
        `HTTP/1.1 ${status} ${title}\r\n${fixed}content-type: ${PROBLEM_CONTENT_TYPE}\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
