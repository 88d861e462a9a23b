/**
 * @crypto-service/mcp: a Model Context Protocol server that exposes crypto-service's operations as
 * tools, over stdio (the crypto-service-mcp command) or Streamable HTTP, and never returns key
 * material unless told to.
 */
export { createCryptoServiceMcpServer, connect, DEFAULT_TIMEOUT_MS, SERVER_NAME } from './server.ts';
export type { CryptoServiceMcpOptions, ServiceConnection } from './server.ts';
export {
  createMcpHttpHandler,
  startMcpHttpServer,
  DEFAULT_HTTP_HOST,
  DEFAULT_HTTP_PATH,
  DEFAULT_HTTP_PORT,
} from './http.ts';
export type { McpHttpOptions, McpHttpServer, StartMcpHttpOptions } from './http.ts';
export { serveStdio } from './stdio.ts';
export { TOOLS } from './tools.ts';
export type { ToolDefinition } from './tools.ts';
export { ALLOW_SECRET_OUTPUT_FLAG } from './secrets.ts';
export type { SecretOutput } from './secrets.ts';
