/**
 * The SDK's own client, connected to crypto-service-mcp over stdio (the bin spawned as an MCP
 * host would) or over Streamable HTTP, and small readers of its tool results.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const BIN = fileURLToPath(new URL('../bin/crypto-service-mcp.js', import.meta.url));

/** The child's environment: the export conditions of this run (npm's NODE_OPTIONS) and the given variables. */
function childEnv(env: Record<string, string>): Record<string, string> {
  return { NODE_OPTIONS: process.env.NODE_OPTIONS ?? '', ...env };
}

function conditionFlags(): string[] {
  return process.execArgv.filter((flag) => flag.startsWith('--conditions') || flag.startsWith('-C'));
}

function newClient(): Client {
  return new Client({ name: 'crypto-service-mcp-test', version: '0.0.0' });
}

export interface Connected {
  client: Client;
  close(): Promise<void>;
}

/** Spawns the bin with `args` and connects the SDK client to it over stdio. */
export async function connectStdio(args: string[], env: Record<string, string>): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...conditionFlags(), BIN, ...args],
    env: childEnv(env),
    stderr: 'pipe',
  });
  const client = newClient();
  await client.connect(transport);
  return { client, close: () => client.close() };
}

/** Spawns the bin with `--http --port 0` and `args`, and waits for the URL it prints. */
export async function spawnHttp(
  args: string[],
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [...conditionFlags(), BIN, '--http', '--port', '0', ...args], {
    env: { PATH: process.env.PATH ?? '', ...childEnv(env) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      const match = /at (http:\/\/\S+)/.exec(stderr);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`crypto-service-mcp exited (${code}): ${stderr}`)));
  });
  return { url, child };
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** Connects the SDK client to a Streamable HTTP endpoint. */
export async function connectHttp(url: string, headers: Record<string, string> = {}): Promise<Connected> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = newClient();
  await client.connect(transport);
  return { client, close: () => client.close() };
}

/** Calls a tool, asserts that it succeeded, and returns its structured content. */
export async function callOk(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.notEqual(result.isError, true, `${name} failed: ${JSON.stringify(result.content)}`);
  const structured = result.structuredContent as { data: Record<string, unknown>; withheld?: string[] };
  const first = result.content[0];
  assert.equal(first?.type, 'text');
  assert.deepEqual(JSON.parse(first.text), structured, 'the text content is the structured content as JSON');
  return structured;
}

/** Calls a tool, asserts that it failed as a tool error, and returns its text. */
export async function callError(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.equal(result.isError, true, `${name} should fail: ${JSON.stringify(result.content)}`);
  return {
    text: result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n'),
    error: (result.structuredContent as { error: Record<string, unknown> }).error,
  };
}
