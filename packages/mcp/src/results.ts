/**
 * Tool results: the service's answer as JSON text and as structured content, and every failure as
 * a tool error result (`isError`), so that the agent reads what went wrong and the server goes on.
 * An error's text is the service's problem or the client's message, never the arguments: those
 * hold keys, passwords and plaintexts.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CryptoApiError, CryptoClientError } from '@crypto-service/client';
import { ALLOW_SECRET_OUTPUT_FLAG } from './secrets.ts';

export function successResult(result: { data: unknown }, withheld: readonly string[]): CallToolResult {
  const structured: Record<string, unknown> = withheld.length === 0 ? { ...result } : { ...result, withheld };
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(structured) }];
  if (withheld.length > 0)
    content.push({
      type: 'text',
      text: `Withheld: ${withheld.join(', ')}. This server does not return private or symmetric key material unless started with ${ALLOW_SECRET_OUTPUT_FLAG}.`,
    });
  return { content, structuredContent: structured };
}

/** A call refused before it reached the service because its whole result is key material. */
export function secretRefusal(toolName: string): CallToolResult {
  return errorResult(
    `${toolName} returns only private or symmetric key material, which this server does not return unless started with ${ALLOW_SECRET_OUTPUT_FLAG}.`,
    { code: 'SECRET_OUTPUT_REFUSED' },
  );
}

/** Any failure of a call, as a tool error result. */
export function failureResult(error: unknown): CallToolResult {
  if (error instanceof CryptoApiError) {
    const { status, code, title, detail, errors } = error.body;
    const message = detail ?? error.body.error;
    // The field errors that the detail does not already say, one line each.
    const fields = (errors ?? [])
      .filter((field) => !message.includes(field.message))
      .map((field) => `\n${field.field}: ${field.message}`)
      .join('');
    return errorResult(`The service answered ${status}${code === undefined ? '' : ` ${code}`}: ${message}${fields}`, {
      status,
      ...(code === undefined ? {} : { code }),
      ...(title === undefined ? {} : { title }),
      detail: message,
      ...(errors === undefined ? {} : { errors }),
    });
  }
  if (error instanceof CryptoClientError) return errorResult(error.message, { code: error.name });
  if (isAbort(error)) return errorResult('The call was cancelled.', { code: 'CANCELLED' });
  // An unexpected error's message could hold anything, so the agent gets only its kind.
  return errorResult('The MCP server failed to complete the call (an unexpected internal error).', {
    code: 'INTERNAL_ERROR',
  });
}

function errorResult(text: string, problem: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: { error: problem }, isError: true };
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}
