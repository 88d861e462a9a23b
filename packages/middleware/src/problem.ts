/**
 * RFC 9457 problem details, the error format of the service itself, so that an app's clients
 * handle the middleware's refusals the same way as the service's.
 */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** The JSON pointer of the field a field problem is about. */
  field?: string;
}

export type WebhookFailureReason = 'missing-header' | 'malformed-header' | 'expired' | 'invalid-signature' | 'replayed';

const WEBHOOK_DETAILS: Record<WebhookFailureReason, string> = {
  'missing-header': 'The request has no webhook signature header.',
  'malformed-header': 'The webhook signature header is not of the form t=<unix seconds>,v1=<hex>.',
  expired: "The webhook's timestamp is outside the accepted window.",
  'invalid-signature': 'No signature in the header matches the body.',
  replayed: 'This webhook delivery has already been accepted once.',
};

/** The 401 answered for a webhook that fails verification; the reason never reveals a key. */
export function webhookProblem(reason: WebhookFailureReason): Problem {
  return {
    type: `urn:crypto-service:problem:webhook-${reason}`,
    title: 'Webhook signature verification failed',
    status: 401,
    detail: WEBHOOK_DETAILS[reason],
  };
}

/** The 400 answered for a protected field that does not decrypt; it names the field, never its value. */
export function fieldProblem(pointer: string): Problem {
  return {
    type: 'urn:crypto-service:problem:field-decryption-failed',
    title: 'Field decryption failed',
    status: 400,
    detail: `The field ${pointer} is not a ciphertext of this field under the configured key.`,
    field: pointer,
  };
}

/** The 413 answered for a webhook body over the configured limit. */
export function bodyTooLargeProblem(limit: number): Problem {
  return {
    type: 'urn:crypto-service:problem:payload-too-large',
    title: 'Payload too large',
    status: 413,
    detail: `The request body is larger than ${limit} bytes.`,
  };
}

/** The 400 answered for a verified webhook whose JSON body does not parse. */
export function malformedJsonProblem(): Problem {
  return {
    type: 'urn:crypto-service:problem:malformed-json',
    title: 'Malformed JSON body',
    status: 400,
    detail: 'The body is declared as JSON but does not parse.',
  };
}
