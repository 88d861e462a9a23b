/**
 * The command line of crypto-service-mcp: the service's URL and credential from flags, else from
 * the same environment variables as the crypto-service CLI (flags win). Secret output is an
 * explicit flag only, never an environment variable that a shell could pass on unnoticed.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_HTTP_HOST, DEFAULT_HTTP_PATH, DEFAULT_HTTP_PORT, type StartMcpHttpOptions } from './http.ts';
import { DEFAULT_TIMEOUT_MS } from './server.ts';

export const DEFAULT_SERVICE_URL = 'http://localhost:3000';

export type Invocation =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'stdio'; options: StartMcpHttpOptions }
  | { kind: 'http'; options: StartMcpHttpOptions };

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const HELP = `Usage: crypto-service-mcp [options]

A Model Context Protocol server that exposes crypto-service's operations as tools. It speaks MCP
on stdin/stdout, or over Streamable HTTP with --http.

Service:
  --url <url>             the service's URL (default ${DEFAULT_SERVICE_URL})
  --api-key <key>         API key, sent as x-api-key
  --token <jwt>           JWT, sent as Authorization: Bearer
  --timeout <ms>          time limit of one service call (default ${DEFAULT_TIMEOUT_MS})
  --retry                 retry on 429 and 503
  --allow-secret-output   return private and symmetric key material (withheld by default)

Streamable HTTP:
  --http                  serve Streamable HTTP instead of stdio
  --host <address>        address to listen on (default ${DEFAULT_HTTP_HOST})
  --port <port>           port (default ${DEFAULT_HTTP_PORT}; 0 picks a free one)
  --path <path>           endpoint path (default ${DEFAULT_HTTP_PATH})
  --http-token <token>    bearer token that MCP clients must send (required off loopback)

  --help, --version

Environment:
  CRYPTO_SERVICE_URL      the service's URL (--url wins)
  CRYPTO_API_KEY          API key (--api-key wins)
  CRYPTO_SERVICE_TOKEN    JWT bearer token (--token wins)
  CRYPTO_MCP_HTTP_TOKEN   the HTTP endpoint's bearer token (--http-token wins)`;

export function parseInvocation(argv: readonly string[], env: NodeJS.ProcessEnv): Invocation {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        url: { type: 'string' },
        'api-key': { type: 'string' },
        token: { type: 'string' },
        timeout: { type: 'string' },
        retry: { type: 'boolean' },
        'allow-secret-output': { type: 'boolean' },
        http: { type: 'boolean' },
        host: { type: 'string' },
        port: { type: 'string' },
        path: { type: 'string' },
        'http-token': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help === true) return { kind: 'help' };
  if (values.version === true) return { kind: 'version' };
  const options: StartMcpHttpOptions = {
    service: {
      url: values.url ?? nonEmpty(env.CRYPTO_SERVICE_URL) ?? DEFAULT_SERVICE_URL,
      apiKey: values['api-key'] ?? nonEmpty(env.CRYPTO_API_KEY),
      token: values.token ?? nonEmpty(env.CRYPTO_SERVICE_TOKEN),
      timeout: integer(values.timeout, 'timeout', 1, 2 ** 31 - 1) ?? DEFAULT_TIMEOUT_MS,
      retry: values.retry === true,
    },
    allowSecretOutput: values['allow-secret-output'] === true,
  };
  if (values.http !== true) {
    const httpOnly = (['host', 'port', 'path', 'http-token'] as const).find((name) => values[name] !== undefined);
    if (httpOnly !== undefined) throw new UsageError(`--${httpOnly} needs --http`);
    return { kind: 'stdio', options };
  }
  if (values.path !== undefined && !values.path.startsWith('/')) throw new UsageError('--path must start with /');
  return {
    kind: 'http',
    options: {
      ...options,
      host: values.host ?? DEFAULT_HTTP_HOST,
      port: integer(values.port, 'port', 0, 65535) ?? DEFAULT_HTTP_PORT,
      path: values.path ?? DEFAULT_HTTP_PATH,
      authToken: values['http-token'] ?? nonEmpty(env.CRYPTO_MCP_HTTP_TOKEN),
    },
  };
}

function integer(value: string | undefined, name: string, minimum: number, maximum: number): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < minimum || number > maximum)
    throw new UsageError(`--${name} must be an integer from ${minimum} to ${maximum}`);
  return number;
}

// An exported but empty variable (CRYPTO_API_KEY= in a script) means "not set", not "empty key".
function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
