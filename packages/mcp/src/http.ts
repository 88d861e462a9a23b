/**
 * The Streamable HTTP transport, stateless: each POST gets its own MCP server and transport, so
 * any number of clients (and of processes behind a load balancer) can share one endpoint. Whoever
 * reaches the endpoint uses the service's credential, so it listens on loopback by default,
 * checks Host and Origin there (DNS rebinding), and asks for a bearer token everywhere else.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createCryptoServiceMcpServer, serviceClient, type CryptoServiceMcpOptions } from './server.ts';

export const DEFAULT_HTTP_HOST = '127.0.0.1';
export const DEFAULT_HTTP_PORT = 3001;
export const DEFAULT_HTTP_PATH = '/mcp';

const LOOPBACK_HOSTNAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

export interface McpHttpOptions extends CryptoServiceMcpOptions {
  /** The endpoint's path (default `/mcp`). */
  path?: string | undefined;
  /** A token that MCP clients must send as `Authorization: Bearer <token>`; required off loopback. */
  authToken?: string | undefined;
  /**
   * Host names (without port) that the Host and Origin headers may carry; the loopback names by
   * default on loopback, anything when an auth token is set and no list is given.
   */
  allowedHosts?: readonly string[] | undefined;
}

export interface StartMcpHttpOptions extends McpHttpOptions {
  /** The address to listen on (default 127.0.0.1). */
  host?: string | undefined;
  /** The port (default 3001; 0 picks a free one). */
  port?: number | undefined;
}

export interface McpHttpServer {
  /** The endpoint's URL, e.g. `http://127.0.0.1:3001/mcp`. */
  readonly url: string;
  close(): Promise<void>;
}

/** A request handler for node:http (or Express, which passes the same objects). */
export function createMcpHttpHandler(options: McpHttpOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const path = options.path ?? DEFAULT_HTTP_PATH;
  const allowedHosts = options.allowedHosts ?? (options.authToken === undefined ? LOOPBACK_HOSTNAMES : undefined);
  const expectedToken = options.authToken === undefined ? undefined : digest(options.authToken);
  // One client for every request's server, rather than one per request.
  const serverOptions: CryptoServiceMcpOptions = { ...options, service: serviceClient(options.service) };

  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== path) return reject(req, res, 404, 'Not found');
    if (allowedHosts !== undefined && !hostsAllowed(req, allowedHosts))
      return reject(req, res, 403, 'Host or Origin not allowed');
    if (expectedToken !== undefined && !tokenMatches(req.headers.authorization, expectedToken)) {
      res.setHeader('www-authenticate', 'Bearer');
      return reject(req, res, 401, 'Unauthorized');
    }
    if (req.method !== 'POST') {
      // Stateless: no session to stream to (GET) or to end (DELETE).
      res.setHeader('allow', 'POST');
      return reject(req, res, 405, 'Method not allowed');
    }
    void handlePost(serverOptions, req, res);
  };
}

/** Listens on host:port and serves the endpoint until close(). */
export async function startMcpHttpServer(options: StartMcpHttpOptions): Promise<McpHttpServer> {
  const host = options.host ?? DEFAULT_HTTP_HOST;
  if (options.authToken === undefined && !isLoopback(host))
    throw new Error(
      `listening on ${host} needs an auth token (--http-token or CRYPTO_MCP_HTTP_TOKEN): whoever reaches the endpoint uses the service's credential`,
    );
  const server = createServer(createMcpHttpHandler(options));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_HTTP_PORT, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}${options.path ?? DEFAULT_HTTP_PATH}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}

async function handlePost(options: CryptoServiceMcpOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const server = createCryptoServiceMcpServer(options);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(req, res);
  } catch {
    if (!res.headersSent) reject(req, res, 500, 'Internal error');
  }
}

function reject(req: IncomingMessage, res: ServerResponse, status: number, message: string): void {
  // The unread body is drained, so that the connection stays usable for the client's next request.
  req.resume();
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

function hostsAllowed(req: IncomingMessage, allowed: readonly string[]): boolean {
  const host = req.headers.host;
  if (host === undefined || !allowed.includes(hostname(`http://${host}`))) return false;
  const origin = req.headers.origin;
  return origin === undefined || allowed.includes(hostname(origin));
}

function hostname(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

// Digests have one length, so the comparison is constant-time whatever the token sent.
function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

function tokenMatches(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer (.+)$/i.exec(header ?? '');
  return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected);
}
