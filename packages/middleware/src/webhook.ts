/**
 * Signed webhooks, framework-free: `signWebhook` for senders, `createWebhookVerifier` for
 * receivers. The signed content is the UTF-8 of `${t}.` followed by the exact body bytes; the
 * signature is HMAC-SHA-256 under a shared key or Ed25519 under the sender's private key, hex in
 * the header's v1 members. Verification runs locally on Web Crypto or through the service, with
 * the same rules: the receiver's configuration fixes the algorithm (the header never chooses it),
 * the timestamp must be within the window, and any v1 value may match any configured key.
 */
import type { CryptoClient } from '@crypto-service/client';
import { bodyBytes, concat, fromHex, toBase64, toHex, utf8 } from './bytes.ts';
import type { WebhookFailureReason } from './problem.ts';
import { memoryReplayCache, type ReplayCache } from './replay-cache.ts';
import { DEFAULT_SIGNATURE_HEADER, formatSignatureHeader, parseSignatureHeader } from './webhook-header.ts';

export type WebhookBody = Uint8Array | ArrayBuffer | string;

/** The keys a receiver accepts; several during a rotation. Hex, as the service generates them. */
export type WebhookKeys =
  | { algorithm: 'hmac-sha256'; secret: string | readonly string[] }
  | { algorithm: 'ed25519'; publicKey: string | readonly string[] };

export type WebhookVerifierOptions = WebhookKeys & {
  /** Verify through the service (/v2/hmac/verify, /v2/verify) instead of locally. */
  client?: CryptoClient;
  /** How far the timestamp may be from now, either way, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Where accepted deliveries are remembered (default: this process's memory); false turns it off. */
  replayCache?: ReplayCache | false;
  /** The signature header's name (default crypto-service-signature). */
  header?: string;
};

export type WebhookVerification = { ok: true; timestamp: number } | { ok: false; reason: WebhookFailureReason };

export interface WebhookVerifier {
  /** The header's name, lower case, for the adapters to read. */
  readonly header: string;
  verify(body: WebhookBody, header: string | null | undefined): Promise<WebhookVerification>;
}

export type SignWebhookOptions =
  | { algorithm: 'hmac-sha256'; secret: string | readonly string[]; timestamp?: number }
  | { algorithm: 'ed25519'; privateKey: string | readonly string[]; timestamp?: number };

export const DEFAULT_TOLERANCE_SECONDS = 300;

// PKCS#8 wrapping of a raw Ed25519 seed (RFC 8410): Web Crypto imports private keys only this way.
const ED25519_PKCS8_PREFIX = fromHex('302e020100300506032b657004220420')!;

function list(value: string | readonly string[]): readonly string[] {
  return typeof value === 'string' ? [value] : value;
}

function keyBytes(hex: string, what: string): Uint8Array<ArrayBuffer> {
  const bytes = fromHex(hex);
  if (bytes === undefined || bytes.length === 0) throw new TypeError(`the webhook ${what} must be non-empty hex`);
  return bytes;
}

function signedContent(timestamp: number, body: WebhookBody): Uint8Array<ArrayBuffer> {
  return concat(utf8(`${timestamp}.`), bodyBytes(body));
}

/** The header value for `body`, signed with every given key (an old and a new one during a rotation). */
export async function signWebhook(body: WebhookBody, options: SignWebhookOptions): Promise<string> {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const content = signedContent(timestamp, body);
  const signatures = await Promise.all(
    options.algorithm === 'hmac-sha256'
      ? list(options.secret).map(async (secret) => {
          const key = await crypto.subtle.importKey('raw', keyBytes(secret, 'secret'), HMAC, false, ['sign']);
          return toHex(new Uint8Array(await crypto.subtle.sign('HMAC', key, content)));
        })
      : list(options.privateKey).map(async (privateKey) => {
          const seed = keyBytes(privateKey, 'private key');
          if (seed.length !== 32) throw new TypeError('the Ed25519 private key must be 32 bytes of hex');
          const pkcs8 = concat(ED25519_PKCS8_PREFIX, seed);
          const key = await crypto.subtle.importKey('pkcs8', pkcs8, 'Ed25519', false, ['sign']);
          return toHex(new Uint8Array(await crypto.subtle.sign('Ed25519', key, content)));
        }),
  );
  return formatSignatureHeader(timestamp, signatures);
}

const HMAC = { name: 'HMAC', hash: 'SHA-256' } as const;

/** Does `signature` sign `content` under one of the keys? Each check is Web Crypto's verify, constant-time for HMAC. */
type SignatureCheck = (content: Uint8Array<ArrayBuffer>, signature: string) => Promise<boolean>;

function localCheck(keys: WebhookKeys): SignatureCheck {
  const imported =
    keys.algorithm === 'hmac-sha256'
      ? Promise.all(
          list(keys.secret).map((hex) =>
            crypto.subtle.importKey('raw', keyBytes(hex, 'secret'), HMAC, false, ['verify']),
          ),
        )
      : Promise.all(
          list(keys.publicKey).map((hex) =>
            crypto.subtle.importKey('raw', keyBytes(hex, 'public key'), 'Ed25519', false, ['verify']),
          ),
        );
  const algorithm = keys.algorithm === 'hmac-sha256' ? 'HMAC' : 'Ed25519';
  return async (content, signature) => {
    const signatureBytes = fromHex(signature);
    if (signatureBytes === undefined) return false;
    for (const key of await imported) {
      if (await crypto.subtle.verify(algorithm, key, signatureBytes, content)) return true;
    }
    return false;
  };
}

function serviceCheck(keys: WebhookKeys, client: CryptoClient): SignatureCheck {
  const expectedLength = keys.algorithm === 'hmac-sha256' ? 64 : 128;
  return async (content, signature) => {
    // The service refuses a MAC or signature of the wrong length with a 400: that is a mismatch here.
    if (signature.length !== expectedLength) return false;
    const data = toBase64(content);
    if (keys.algorithm === 'hmac-sha256') {
      for (const key of list(keys.secret)) {
        const { data: result } = await client.macVerify({
          algorithm: 'hmac-sha256',
          key,
          data,
          encoding: 'base64',
          mac: signature,
        });
        if (result.valid) return true;
      }
    } else {
      for (const publicKey of list(keys.publicKey)) {
        const { data: result } = await client.verify({
          algorithm: 'ed25519',
          publicKey,
          message: data,
          encoding: 'base64',
          signature,
        });
        if (result.valid) return true;
      }
    }
    return false;
  };
}

export function createWebhookVerifier(options: WebhookVerifierOptions): WebhookVerifier {
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance <= 0) throw new TypeError('toleranceSeconds must be a positive number');
  const keys = list(options.algorithm === 'hmac-sha256' ? options.secret : options.publicKey);
  if (keys.length === 0) throw new TypeError('the webhook verifier needs at least one key');
  for (const key of keys) {
    const bytes = keyBytes(key, options.algorithm === 'hmac-sha256' ? 'secret' : 'public key');
    if (options.algorithm === 'ed25519' && bytes.length !== 32)
      throw new TypeError('an Ed25519 public key must be 32 bytes of hex');
  }
  const check = options.client === undefined ? localCheck(options) : serviceCheck(options, options.client);
  const replayCache = options.replayCache === false ? undefined : (options.replayCache ?? memoryReplayCache());
  const header = (options.header ?? DEFAULT_SIGNATURE_HEADER).toLowerCase();

  return {
    header,
    async verify(body, value) {
      if (value == null || value === '') return { ok: false, reason: 'missing-header' };
      const parsed = parseSignatureHeader(value);
      if (parsed === undefined) return { ok: false, reason: 'malformed-header' };
      if (Math.abs(Date.now() / 1000 - parsed.timestamp) > tolerance) return { ok: false, reason: 'expired' };
      const content = signedContent(parsed.timestamp, body);
      for (const signature of parsed.signatures) {
        if (!(await check(content, signature))) continue;
        // Twice the tolerance: a timestamp is accepted from tolerance before now until tolerance after.
        if (replayCache !== undefined && (await replayCache.seen(`${parsed.timestamp}.${signature}`, 2 * tolerance))) {
          return { ok: false, reason: 'replayed' };
        }
        return { ok: true, timestamp: parsed.timestamp };
      }
      return { ok: false, reason: 'invalid-signature' };
    },
  };
}
