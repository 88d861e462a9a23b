/**
 * Which start-up self-tests (`family/id`, see @crypto-service/core self-test.ts) a request depends
 * on, from its route template (`request.routeOptions.url`) and its validated body. The self-tests
 * plugin refuses a request with a 503 while any of them is failed or not yet run.
 *
 * The rule: a request depends on the pair of every registry algorithm whose code it runs, defaults
 * included (`/v2/sign` without `algorithm` is Ed25519). Composite operations list their parts when
 * those are registry algorithms in their own right: the password envelope (Argon2id and
 * XChaCha20-Poly1305), the post-quantum sealed box (X-Wing), the multi-recipient envelope (the
 * payload AEAD and each slot type it touches). A key-generation request depends on the
 * `keyGeneration` pair and on the algorithm the key is for (a key for a disabled algorithm could
 * not be used here anyway).
 *
 * Where the body does not name a known algorithm (a malformed key length, an identifier that
 * disagrees with the key), nothing is listed: the handler answers the 400 as it always does.
 *
 * Not listed, on purpose: the `/v1` routes run OpenPGP.js, which carries its own implementations
 * (its AES, SHA-2, curve25519 and RSA, in its worker threads), not the core functions these
 * self-tests check; disabling them on a core failure would say nothing true about them, and
 * keeping them up when core fails is what their separate implementation allows. The probes,
 * `/metrics`, `/docs` and `GET /v2/algorithms` run no cryptography.
 */
import {
  ALGORITHM_REGISTRY,
  DEFAULT_KEY_GENERATION_ALGORITHM,
  DEFAULT_KEY_WRAP_ALGORITHM,
  DEFAULT_SIGNATURE_ALGORITHM,
  MULTI_RECIPIENT_ALGORITHM,
  PASSWORD_ENCRYPTION_ALGORITHM,
  PQ_SEALED_BOX,
  X25519_SEALED_BOX,
  XWING_ALGORITHM,
  isRecipientType,
  mlDsaAlgorithm,
  mlDsaAlgorithmForPublicKey,
  mlDsaAlgorithmForSecretKey,
  mlKemAlgorithm,
  mlKemAlgorithmForPublicKey,
  mlKemAlgorithmForSecretKey,
  recipientTypeForPublicKeyLength,
  slhDsaAlgorithm,
  type AlgorithmFamily,
  type RecipientType,
} from '@crypto-service/core';

type Body = Readonly<Record<string, unknown>>;
type Resolver = (body: Body) => readonly (string | undefined)[];

const AEAD = 'aead/xchacha20-poly1305';
const ARGON2ID = 'password/argon2id';
const XWING = `hybridKem/${XWING_ALGORITHM}`;
const MULTI_RECIPIENT = `multiRecipient/${MULTI_RECIPIENT_ALGORITHM}`;

function field(body: Body, name: string): string | undefined {
  const value = body[name];
  return typeof value === 'string' ? value : undefined;
}

/** Bytes in a hex field, where it is hex-shaped; the handler refuses anything else. */
function hexLength(body: Body, name: string): number | undefined {
  const value = field(body, name);
  return value !== undefined && value.length % 2 === 0 ? value.length / 2 : undefined;
}

function pair(family: AlgorithmFamily, algorithm: string | undefined): string | undefined {
  return algorithm === undefined ? undefined : `${family}/${algorithm}`;
}

/** Core's resolvers throw a 400 for an unknown identifier: here that means "no algorithm". */
function resolved(resolve: () => string | undefined): string | undefined {
  try {
    return resolve();
  } catch {
    return undefined;
  }
}

/** The key-generation pair, and the pair of every other family that has the same identifier. */
function keyGeneration(algorithm: string | undefined): (string | undefined)[] {
  if (algorithm === undefined) return [];
  const families = (Object.keys(ALGORITHM_REGISTRY) as AlgorithmFamily[]).filter(
    (family) => family !== 'keyGeneration' && (ALGORITHM_REGISTRY[family] as readonly string[]).includes(algorithm),
  );
  return [pair('keyGeneration', algorithm), ...families.map((family) => pair(family, algorithm))];
}

function hasAny(body: Body, names: readonly string[]): boolean {
  return names.some((name) => body[name] !== undefined);
}

const aead: Resolver = () => [AEAD];
const classicalSealedBox: Resolver = () => [`sealedBox/${X25519_SEALED_BOX}`];
const pqSealedBox: Resolver = () => [`pqSealedBox/${PQ_SEALED_BOX}`, XWING];
const keyWrap: Resolver = (body) => [pair('keyWrap', field(body, 'algorithm') ?? DEFAULT_KEY_WRAP_ALGORITHM)];
const signature: Resolver = (body) => [pair('signature', field(body, 'algorithm') ?? DEFAULT_SIGNATURE_ALGORITHM)];
const hmac: Resolver = (body) => [pair('mac', field(body, 'algorithm'))];
const password: Resolver = () => [ARGON2ID];
const passwordEnvelope: Resolver = () => [`passwordEncryption/${PASSWORD_ENCRYPTION_ALGORITHM}`, ARGON2ID, AEAD];
const hybrid: Resolver = () => [XWING];

const slhDsaOf = (body: Body) => resolved(() => slhDsaAlgorithm(field(body, 'algorithm')));
const slhDsaKeygen: Resolver = (body) => [pair('slhDsa', slhDsaOf(body)), pair('keyGeneration', slhDsaOf(body))];
const slhDsaUse: Resolver = (body) => [pair('slhDsa', slhDsaOf(body))];

/** The type of a multi-recipient entry: given, or inferred from its key as core does. */
function recipientTypeOf(entry: Body): RecipientType | undefined {
  const type = field(entry, 'type');
  if (type !== undefined) return isRecipientType(type) ? type : undefined;
  if (entry.x25519PublicKey !== undefined || entry.mlKemPublicKey !== undefined) return 'x25519-ml-kem-768';
  const length = hexLength(entry, 'publicKey');
  return length === undefined ? undefined : recipientTypeForPublicKeyLength(length);
}

function entries(body: Body): Body[] {
  const list = Array.isArray(body.recipients) ? (body.recipients as unknown[]) : [];
  return list.map((entry) => (typeof entry === 'object' && entry !== null ? (entry as Body) : {}));
}

/** The multi-recipient pairs: the envelope, its payload AEAD, and each slot type given. */
function multiRecipient(types: Iterable<RecipientType | undefined>): (string | undefined)[] {
  return [MULTI_RECIPIENT, AEAD, ...[...new Set(types)].map((type) => pair('recipientType', type))];
}

/** Every POST route that runs core cryptography, by route template. */
export const SELF_TESTS_BY_ROUTE: Readonly<Record<string, Resolver>> = {
  '/v2/hash': (body) => [pair('hash', field(body, 'algorithm'))],
  '/v2/encrypt': aead,
  '/v2/decrypt': aead,
  // secretstream is XChaCha20's subkey and ChaCha20 with Poly1305, the parts the AEAD self-test checks.
  '/v2/stream/encrypt': () => [AEAD],
  '/v2/stream/decrypt': () => [AEAD],
  '/v2/secretbox/seal': aead,
  '/v2/secretbox/open': aead,
  '/v2/sealedbox/seal': classicalSealedBox,
  '/v2/sealedbox/open': classicalSealedBox,
  '/v2/sealedbox/seal-pq': pqSealedBox,
  '/v2/sealedbox/open-pq': pqSealedBox,
  '/v2/keys/wrap': keyWrap,
  '/v2/keys/unwrap': keyWrap,
  '/v2/sign': signature,
  '/v2/verify': signature,
  '/v2/keys/generate': (body) => keyGeneration(field(body, 'algorithm') ?? DEFAULT_KEY_GENERATION_ALGORITHM),
  '/v2/kdf': (body) => [pair('kdf', field(body, 'algorithm'))],
  '/v2/hmac': hmac,
  '/v2/hmac/verify': hmac,
  '/v2/password/hash': password,
  '/v2/password/verify': password,
  '/v2/password/encrypt': passwordEnvelope,
  '/v2/password/decrypt': passwordEnvelope,
  '/v2/multi-recipient/encrypt': (body) => multiRecipient(entries(body).map(recipientTypeOf)),
  // A privateKey opens the slots of either type, so the envelope's slot types say what runs; the
  // parts open hybrid slots only.
  '/v2/multi-recipient/decrypt': (body) =>
    multiRecipient(
      hasAny(body, ['x25519PrivateKey', 'mlKemPrivateKey'])
        ? ['x25519-ml-kem-768']
        : entries(body).map((slot) => {
            const type = field(slot, 'type');
            return type !== undefined && isRecipientType(type) ? type : undefined;
          }),
    ),
  '/v2/pq/keygen': (body) => {
    const algorithm = resolved(() => mlKemAlgorithm(field(body, 'algorithm')));
    return [pair('mlKem', algorithm), pair('keyGeneration', algorithm)];
  },
  '/v2/pq/encapsulate': (body) => {
    const length = hexLength(body, 'publicKey');
    return [pair('mlKem', length === undefined ? undefined : mlKemAlgorithmForPublicKey(length))];
  },
  '/v2/pq/decapsulate': (body) => {
    const length = hexLength(body, 'privateKey');
    return [
      pair('mlKem', length === undefined ? undefined : mlKemAlgorithmForSecretKey(length, field(body, 'algorithm'))),
    ];
  },
  '/v2/pq/hybrid/keygen': () => [XWING, `keyGeneration/${XWING_ALGORITHM}`],
  '/v2/pq/hybrid/encapsulate': hybrid,
  '/v2/pq/hybrid/decapsulate': hybrid,
  '/v2/pq/dsa/keygen': (body) => {
    const algorithm = resolved(() => mlDsaAlgorithm(field(body, 'algorithm')));
    return [pair('mlDsa', algorithm), pair('keyGeneration', algorithm)];
  },
  '/v2/pq/dsa/sign': (body) => {
    const length = hexLength(body, 'privateKey');
    return [
      pair('mlDsa', length === undefined ? undefined : mlDsaAlgorithmForSecretKey(length, field(body, 'algorithm'))),
    ];
  },
  '/v2/pq/dsa/verify': (body) => {
    const length = hexLength(body, 'publicKey');
    return [
      pair('mlDsa', length === undefined ? undefined : mlDsaAlgorithmForPublicKey(length, field(body, 'algorithm'))),
    ];
  },
  '/v2/pq/slh-dsa/keygen': slhDsaKeygen,
  '/v2/pq/slh-dsa/sign': slhDsaUse,
  '/v2/pq/slh-dsa/verify': slhDsaUse,
  '/v2/pq/hash-sign/keygen': slhDsaKeygen,
  '/v2/pq/hash-sign/sign': slhDsaUse,
  '/v2/pq/hash-sign/verify': slhDsaUse,
};

/** POST routes that depend on no self-test, and why (see the file comment). */
export const ROUTES_WITHOUT_SELF_TESTS: Readonly<Record<string, string>> = Object.fromEntries(
  ['/v1/generate', '/v1/encrypt', '/v1/decrypt', '/v1/sign', '/v1/verify', '/v1/revoke'].map((url) => [
    url,
    'OpenPGP.js, with its own implementations, not the core functions the self-tests check',
  ]),
);

/**
 * The self-tests a request depends on: `family/id` pairs, without repeats. Empty for a route that
 * runs no core cryptography, and for a body that names no known algorithm.
 */
export function selfTestsOfRequest(url: string | undefined, body: unknown): string[] {
  if (url === undefined || !Object.hasOwn(SELF_TESTS_BY_ROUTE, url)) return [];
  const resolver = SELF_TESTS_BY_ROUTE[url] as Resolver;
  // Bodyless requests (the X-Wing keygen may omit its body) resolve with their defaults.
  const fields: Body = typeof body === 'object' && body !== null ? (body as Body) : {};
  return [...new Set(resolver(fields).filter((id): id is string => id !== undefined))];
}
