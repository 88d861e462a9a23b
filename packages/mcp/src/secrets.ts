/**
 * The secret-output rule: a result never carries private or symmetric key material (private keys,
 * symmetric keys, derived keys, KEM shared secrets) unless the server was started with
 * `allowSecretOutput`. What an agent sees can end up in a transcript, a log or a prompt of
 * another tool, so key material stays with the application that asked for it through the client.
 */

/** Which part of a tool's result is key material. */
export type SecretOutput =
  | { readonly kind: 'none' }
  /** These members of `data` are withheld; `wholeWhen` says for which arguments the whole result is secret. */
  | {
      readonly kind: 'fields';
      readonly fields: readonly string[];
      readonly wholeWhen?: (args: unknown) => boolean;
    }
  /** The whole result is key material: the call is refused before it reaches the service. */
  | { readonly kind: 'whole' };

export const ALLOW_SECRET_OUTPUT_FLAG = '--allow-secret-output';

/** The sentence added to the description of every tool whose result can hold key material. */
export function secretOutputNotice(rule: SecretOutput, allowSecretOutput: boolean): string | undefined {
  if (rule.kind === 'none') return undefined;
  if (allowSecretOutput)
    return `This server was started with ${ALLOW_SECRET_OUTPUT_FLAG}: the result includes key material; do not repeat it.`;
  if (rule.kind === 'whole')
    return `Its result is key material, which this server never returns: the call is refused unless the server is started with ${ALLOW_SECRET_OUTPUT_FLAG}.`;
  const whole = rule.wholeWhen === undefined ? '' : ' (symmetric keys: the call is refused)';
  return `Key material (${rule.fields.join(', ')}) is withheld from the result${whole}; the server returns it only when started with ${ALLOW_SECRET_OUTPUT_FLAG}.`;
}

/** Whether a call with these arguments would return nothing but key material. */
export function isWholeSecret(rule: SecretOutput, args: unknown): boolean {
  if (rule.kind === 'whole') return true;
  return rule.kind === 'fields' && rule.wholeWhen !== undefined && rule.wholeWhen(args);
}

export interface Withheld {
  /** The result without its key material. */
  readonly result: { data: unknown };
  /** The names of the members taken out of `data`. */
  readonly withheld: readonly string[];
}

/** Takes the rule's members out of `data` (a copy; the service's answer is not changed in place). */
export function withholdSecrets(rule: SecretOutput, result: { data: unknown }): Withheld {
  if (rule.kind !== 'fields' || typeof result.data !== 'object' || result.data === null)
    return { result, withheld: [] };
  const data: Record<string, unknown> = { ...(result.data as Record<string, unknown>) };
  const withheld = rule.fields.filter((field) => field in data);
  for (const field of withheld) delete data[field];
  return { result: { ...result, data }, withheld };
}
