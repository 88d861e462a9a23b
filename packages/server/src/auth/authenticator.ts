/**
 * Authentication: API key and HS256 JWT, each on when its variable is set, either enough when both
 * are. Every credential that is presented must be valid: a bad Bearer token is a 401 even beside a
 * good API key (and the other way round), so that a broken client is told rather than let through
 * by accident.
 */
import { errors as joseErrors, jwtVerify, decodeProtectedHeader } from 'jose';
import { SecretSet, tryOrThrow } from '@crypto-service/core';
import { webcrypto } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { AuthConfig } from '../config.ts';
import { ApiError } from '../errors.ts';
import { grantFromClaims, type Grant } from './scopes.ts';

export interface Principal {
  kind: 'api-key' | 'jwt' | 'anonymous';
  /** The JWT `sub`, when there is one. Never the credential itself. */
  subject: string | undefined;
  grant: Grant;
}

/** Clock skew tolerated on `exp`, `nbf` and `iat`. */
export const JWT_CLOCK_TOLERANCE_SECONDS = 60;
/**
 * A longer token is refused unread: no legitimate token of ours is near this size (a typical one is
 * 200–400 characters). Node refuses headers over 16 KiB in all with a 431 before we see them.
 */
export const MAX_TOKEN_LENGTH = 8192;

/**
 * Whether a presented API key is one of the configured keys. Every configured key is compared
 * (rotation) without stopping at the first match, padded to one size, so neither the content, nor
 * the length, nor which key matched shows in the time taken (core's SecretSet).
 */
export function matchesAnyApiKey(presented: string | string[] | undefined, apiKeys: SecretSet): boolean {
  return typeof presented === 'string' && apiKeys.matches(presented);
}

/**
 * `typ` is optional (RFC 7519 §5.1); when present it must say JWT. Media types are
 * case-insensitive, and a `typ` without a slash means `application/` + it (RFC 7515 §4.1.9), so
 * `JWT`, `jwt` and `application/jwt` all pass; `at+jwt`, `JWE`, `JOSE` and non-strings do not.
 */
function typAcceptable(typ: unknown): boolean {
  if (typ === undefined) return true;
  if (typeof typ !== 'string') return false;
  const lower = typ.toLowerCase();
  return lower === 'jwt' || lower === 'application/jwt';
}

const ANONYMOUS: Principal = Object.freeze({ kind: 'anonymous', subject: undefined, grant: 'all' });
/** Every valid API key is the same principal: an API key carries no subject and every scope. */
const API_KEY_HOLDER: Principal = Object.freeze({ kind: 'api-key', subject: undefined, grant: 'all' });
const REALM = 'crypto-service';

/**
 * The JWT secrets as WebCrypto HMAC-SHA-256 keys, for verification only and not extractable: jose
 * would otherwise import a secret given as bytes again on every verification.
 */
function importJwtKeys(secrets: readonly Uint8Array[]): Promise<webcrypto.CryptoKey[]> {
  return Promise.all(
    secrets.map((secret) =>
      webcrypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']),
    ),
  );
}

export class Authenticator {
  readonly #apiKeys: SecretSet;
  readonly #config: AuthConfig;
  /** The 401 of a request without credentials: it names only the kinds this server accepts. */
  readonly #missing: string;
  /** Imported at the first bearer token (importKey is asynchronous), then reused. */
  #jwtKeys: Promise<webcrypto.CryptoKey[]> | undefined;

  constructor(config: AuthConfig) {
    this.#config = config;
    this.#apiKeys = new SecretSet(config.apiKeys.map((key) => Buffer.from(key, 'utf8')));
    const kinds = [
      ...(config.apiKeys.length > 0 ? ['an API key in the x-api-key header'] : []),
      ...(config.jwtSecrets.length > 0 ? ['a JWT in an Authorization: Bearer header'] : []),
    ];
    this.#missing = `missing credentials: send ${kinds.join(' or ')}`;
  }

  get enabled(): boolean {
    return this.#apiKeys.count > 0 || this.#config.jwtSecrets.length > 0;
  }

  /**
   * `authenticate` without a promise, for requests that present no bearer token to verify (every
   * request when only API keys are configured): the principal, or the same 401 thrown. Undefined
   * when a bearer token is present: `authenticate` must verify it (asynchronously).
   */
  authenticateWithoutToken(headers: IncomingHttpHeaders): Principal | undefined {
    if (!this.enabled) return ANONYMOUS;
    if (this.#config.jwtSecrets.length > 0 && bearerToken(headers.authorization) !== undefined) return undefined;
    const apiKey = this.#apiKeys.count > 0 ? headers['x-api-key'] : undefined;
    if (apiKey === undefined) {
      throw this.#unauthorized(this.#missing);
    }
    if (!matchesAnyApiKey(apiKey, this.#apiKeys)) throw this.#unauthorized('invalid API key');
    return API_KEY_HOLDER;
  }

  async authenticate(headers: IncomingHttpHeaders): Promise<Principal> {
    if (!this.enabled) return ANONYMOUS;
    const token = this.#config.jwtSecrets.length > 0 ? bearerToken(headers.authorization) : undefined;
    const apiKey = this.#apiKeys.count > 0 ? headers['x-api-key'] : undefined;
    if (token === undefined && apiKey === undefined) {
      throw this.#unauthorized(this.#missing);
    }
    let principal: Principal | undefined;
    if (apiKey !== undefined) {
      if (!matchesAnyApiKey(apiKey, this.#apiKeys)) throw this.#unauthorized('invalid API key');
      principal = API_KEY_HOLDER;
    }
    if (token !== undefined) {
      // A JWT with scopes is the narrower credential; when both are valid, its scopes apply.
      principal = await this.#verifyToken(token);
    }
    return principal ?? ANONYMOUS;
  }

  async #verifyToken(token: string): Promise<Principal> {
    const invalid = (why: string) => this.#unauthorized(`invalid bearer token: ${why}`, 'invalid_token');
    if (token.length > MAX_TOKEN_LENGTH) throw invalid('too long');
    const header = tryOrThrow(
      () => decodeProtectedHeader(token),
      () => invalid('malformed'),
    );
    // The algorithm comes from our configuration, never from the token: whatever the header names
    // (none, RS256 or ES256 "verified" with our secret as a public key, HS512), only HS256 passes.
    // Key-locating headers (kid, jku, x5u, jwk, x5c) are ignored: the key is always JWT_SECRET,
    // nothing is ever fetched or read because a token names it.
    if (header.alg !== 'HS256') throw invalid('only HS256 is accepted');
    if (!typAcceptable(header.typ)) throw invalid('typ must be JWT');
    // Critical extensions must be understood or the token refused (RFC 7515 §4.1.11); we understand none.
    if (header.crit !== undefined) throw invalid('critical header extensions are not supported');
    // A failed import (not expected: the secrets are 32 bytes or more) is not kept: the next token tries again.
    this.#jwtKeys ??= importJwtKeys(this.#config.jwtSecrets).catch((error: unknown) => {
      this.#jwtKeys = undefined;
      throw error;
    });
    for (const key of await this.#jwtKeys) {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          clockTolerance: JWT_CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ['exp'],
          ...(this.#config.jwtIssuer === undefined ? {} : { issuer: this.#config.jwtIssuer }),
          ...(this.#config.jwtAudience === undefined ? {} : { audience: this.#config.jwtAudience }),
        });
        // jose checks iat only against a maximum age; a token issued in the future is refused here.
        if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + JWT_CLOCK_TOLERANCE_SECONDS) {
          throw invalid('issued in the future');
        }
        // A stolen token is good until its exp: a lifetime beyond the configured one is refused.
        const issuedAt = typeof payload.iat === 'number' ? payload.iat : Date.now() / 1000;
        const maxTtl = this.#config.jwtMaxTtlSeconds;
        if ((payload.exp as number) - issuedAt > maxTtl + JWT_CLOCK_TOLERANCE_SECONDS) {
          throw invalid(`lifetime (exp - iat) longer than the ${maxTtl} s this server accepts`);
        }
        const grant = grantFromClaims(payload);
        if (grant === 'malformed') throw invalid('scope claim must be a string or scopes an array of strings');
        return { kind: 'jwt', subject: typeof payload.sub === 'string' ? payload.sub : undefined, grant };
      } catch (error) {
        if (error instanceof ApiError) throw error;
        // A signature mismatch may mean the token was made with the other secret of a rotation.
        if (error instanceof joseErrors.JWSSignatureVerificationFailed) continue;
        throw invalid(describeJoseError(error));
      }
    }
    throw invalid('signature verification failed');
  }

  #unauthorized(detail: string, bearerError?: string): ApiError {
    const challenges: string[] = [];
    if (this.#config.jwtSecrets.length > 0) {
      challenges.push(`Bearer realm="${REALM}"${bearerError === undefined ? '' : `, error="${bearerError}"`}`);
    }
    if (this.#apiKeys.count > 0) {
      challenges.push(`ApiKey realm="${REALM}", header="x-api-key"`);
    }
    return new ApiError('UNAUTHORIZED', detail, { headers: { 'www-authenticate': challenges.join(', ') } });
  }
}

/** The token of an `Authorization: Bearer …` header; any other scheme is not ours to judge. */
function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer[ ]+(\S*)\s*$/i.exec(header);
  if (match === null) return undefined;
  return match[1] ?? '';
}

function describeJoseError(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'exp' && error.reason === 'missing') return 'exp claim is required';
    if (error.claim === 'nbf') return 'not yet valid';
    if (error.claim === 'iat') return 'issued in the future';
    if (error.claim === 'iss') return 'wrong issuer';
    if (error.claim === 'aud') return 'wrong audience';
    return `${error.claim} claim is invalid`;
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'only HS256 is accepted';
  return 'malformed or not verifiable';
}
