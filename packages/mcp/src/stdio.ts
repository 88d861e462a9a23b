/** The stdio transport: one MCP server on this process's stdin and stdout, as MCP hosts spawn it. */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createCryptoServiceMcpServer, type CryptoServiceMcpOptions } from './server.ts';

/** Serves MCP on stdin/stdout until stdin ends; nothing else may then write to stdout. */
export async function serveStdio(options: CryptoServiceMcpOptions): Promise<Server> {
  const server = createCryptoServiceMcpServer(options);
  await server.connect(new StdioServerTransport());
  return server;
}
