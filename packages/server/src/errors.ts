/**
 * Every error becomes an RFC 9457 problem here, in one place: the mapping from
 * error to stable code is written once. 500s carry a generic detail; their cause goes to the log.
 */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CryptoError, INSECURE_ALGORITHMS, StacklessError } from '@crypto-service/core';
import {
  ERROR_CODES,
  PROBLEM_CONTENT_TYPE,
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

function messageOf(issue: AjvIssue): string {
  if (issue.keyword === 'additionalProperties') return 'is not a known field';
  if (issue.keyword === 'required') return 'is required';
  if (issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues)) {
    return `must be one of: ${issue.params.allowedValues.join(', ')}`;
  }
  return issue.message ?? 'is invalid';
}

/** A schema violation, or an unknown algorithm when the only fault is the `algorithm` enum. */
function validationProblem(
  issues: AjvIssue[],
  context: string,
  body: unknown,
): { code: ErrorCode; detail: string; errors: FieldError[] } {
  const errors = issues.map((issue) => ({
    field: context === 'body' ? fieldOf(issue) : `${context}${fieldOf(issue)}`,
    message: messageOf(issue),
  }));
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
  const summary = errors.map((error) => `${error.field} ${error.message}`).join('; ');
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

/** Fastify's own errors, by code. Anything else with a 4xx status falls back on the status. */
const FASTIFY_CODES: Record<string, { code: ErrorCode; detail: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    detail: 'the request body must be application/json',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'PAYLOAD_TOO_LARGE',
    detail: 'the request body is larger than the configured limit',
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

/** The error handler of the whole app: everything thrown anywhere ends here as a problem. */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof ApiError) {
    reply.headers(error.headers);
    return sendProblem(reply, request, error.code, error.message, error.errors);
  }
  if (error instanceof CryptoError) {
    const errors = error.field === undefined ? undefined : [{ field: error.field, message: error.message }];
    return sendProblem(reply, request, error.code, error.message, errors);
  }
  if (error.validation !== undefined) {
    const { code, detail, errors } = validationProblem(
      error.validation as AjvIssue[],
      error.validationContext ?? 'body',
      request.body,
    );
    return sendProblem(reply, request, code, detail, errors);
  }
  const known = FASTIFY_CODES[error.code];
  if (known !== undefined) {
    return sendProblem(reply, request, known.code, known.detail);
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    // Fastify's remaining client errors (a bad URL, a forbidden __proto__ key): their status is
    // right, but their message may quote the request, so a fixed text goes out instead.
    request.log.info({ code: error.code }, 'client error');
    return sendProblem(reply, request, byStatus(status), 'the request could not be processed');
  }
  request.log.error({ err: error }, 'unexpected failure');
  return sendProblem(reply, request, 'INTERNAL_ERROR', 'an unexpected error occurred; it has been logged');
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
