/**
 * The MCP server: lists the tools with their protocol schemas and forwards each call to the
 * service through the typed client. It uses the SDK's low-level Server, whose tool handlers take
 * JSON Schema as it is (McpServer.registerTool wants Zod schemas, and the service's are TypeBox).
 */
import { createRequire } from 'node:module';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { CryptoClient } from '@crypto-service/client';
import { ALLOW_SECRET_OUTPUT_FLAG, isWholeSecret, secretOutputNotice, withholdSecrets } from './secrets.ts';
import { failureResult, secretRefusal, successResult } from './results.ts';
import { TOOLS, type ToolDefinition } from './tools.ts';

const { version: VERSION } = createRequire(import.meta.url)('../package.json') as { version: string };

/** Where the service is and how to authenticate to it (the client's options). */
export interface ServiceConnection {
  /** The service's base URL, e.g. `http://localhost:3000`. */
  url: string;
  /** Sent as `x-api-key`. */
  apiKey?: string | undefined;
  /** A JWT, sent as `Authorization: Bearer`. */
  token?: string | undefined;
  /** Time limit of one service call in ms (default 30000). */
  timeout?: number | undefined;
  /** Retry on 429 and 503 as the client does (off by default). */
  retry?: boolean | undefined;
}

export interface CryptoServiceMcpOptions {
  /** The service to forward to: a connection, or a client of your own. */
  service: ServiceConnection | CryptoClient;
  /**
   * Return private keys, symmetric keys, derived keys and shared secrets in results. Off by
   * default: key generation then returns only public keys, and the tools whose whole result is
   * key material (keys_unwrap, the decapsulations, symmetric key generation) refuse.
   */
  allowSecretOutput?: boolean | undefined;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

export const SERVER_NAME = 'crypto-service';

/** A new MCP server for one connection (stdio) or one request (stateless Streamable HTTP). */
export function createCryptoServiceMcpServer(options: CryptoServiceMcpOptions): Server {
  const client = serviceClient(options.service);
  const allowSecretOutput = options.allowSecretOutput === true;
  const server = new Server(
    { name: SERVER_NAME, title: 'crypto-service', version: VERSION },
    { capabilities: { tools: {} }, instructions: instructions(allowSecretOutput) },
  );
  const tools = new Map(TOOLS.map((tool) => [tool.name, tool]));
  const listing = TOOLS.map((tool) => describe(tool, allowSecretOutput));

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = tools.get(request.params.name);
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const args = request.params.arguments ?? {};
    if (!allowSecretOutput && isWholeSecret(tool.secretOutput, args)) return secretRefusal(tool.name);
    try {
      const result = await tool.call(client, args, { signal: extra.signal });
      if (allowSecretOutput) return successResult(result, []);
      const { result: shown, withheld } = withholdSecrets(tool.secretOutput, result);
      return successResult(shown, withheld);
    } catch (error) {
      return failureResult(error);
    }
  });
  return server;
}

/** The client for a connection; a service call has a time limit, so that a stuck call ends as a tool error. */
export function connect(connection: ServiceConnection): CryptoClient {
  return new CryptoClient({
    baseUrl: connection.url,
    ...(connection.apiKey === undefined ? {} : { apiKey: connection.apiKey }),
    ...(connection.token === undefined ? {} : { token: connection.token }),
    timeout: connection.timeout ?? DEFAULT_TIMEOUT_MS,
    retry: connection.retry === true,
  });
}

/** The client for the service option: the one given, or a new one for a connection. */
export function serviceClient(service: ServiceConnection | CryptoClient): CryptoClient {
  return isConnection(service) ? connect(service) : service;
}

// Told apart by shape: a client from another copy of the client package is not an instance of this one's.
function isConnection(service: ServiceConnection | CryptoClient): service is ServiceConnection {
  return typeof (service as Partial<ServiceConnection>).url === 'string';
}

function describe(tool: ToolDefinition, allowSecretOutput: boolean): Tool {
  const notice = secretOutputNotice(tool.secretOutput, allowSecretOutput);
  return {
    name: tool.name,
    title: tool.title,
    description: notice === undefined ? tool.description : `${tool.description} ${notice}`,
    // A JSON copy: the protocol's schemas are shared objects, and TypeBox marks them with symbols.
    inputSchema: JSON.parse(JSON.stringify(tool.inputSchema)) as Tool['inputSchema'],
    annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  };
}

function instructions(allowSecretOutput: boolean): string {
  const rule = allowSecretOutput
    ? `This server was started with ${ALLOW_SECRET_OUTPUT_FLAG}: results include private and symmetric key material; never repeat it to the user or to other tools without need.`
    : `Results never include private or symmetric key material (private keys, symmetric keys, derived keys, shared secrets): key generation returns public keys only, and the tools whose whole result is key material refuse. Starting the server with ${ALLOW_SECRET_OUTPUT_FLAG} changes that.`;
  return `Cryptography through a crypto-service instance: hashing, encryption, signatures, MACs, key derivation, password hashing and post-quantum algorithms. Binary values are hex (keys, signatures) or base64 (ciphertexts); text fields are UTF-8 unless \`encoding\` says base64 or hex. ${rule}`;
}
