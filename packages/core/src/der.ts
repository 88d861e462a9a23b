/**
 * PEM and DER for the key formats of `/v2/keys/generate` and the PEM key fields of `/v2/sign` and
 * `/v2/verify`: one unencrypted PKCS#8 `PRIVATE KEY` or SPKI `PUBLIC KEY` block (RFC 7468), and
 * the few DER forms (RFC 5958 OneAsymmetricKey, RFC 5280 SubjectPublicKeyInfo) that the
 * post-quantum keys need. node:crypto reads the classical keys; Node 22 cannot read post-quantum
 * ones at all, so those are parsed here, on both runtimes alike.
 *
 * The reader is strict DER: definite minimal lengths, no trailing bytes, every element where the
 * structure puts it. A key is secret input, and "almost DER" is how two parsers come to disagree
 * about which key a blob holds.
 */
import { asBuffer, concatBytes } from './bytes.ts';
import { base64ToBytes } from './codec.ts';
import { wipe } from './ct.ts';
import { invalidInput, StacklessError } from './errors.ts';

export const DER_SEQUENCE = 0x30;
export const DER_INTEGER = 0x02;
export const DER_BIT_STRING = 0x03;
export const DER_OCTET_STRING = 0x04;
export const DER_OID = 0x06;
/** [0] IMPLICIT, primitive: the `seed` choice of the ML-KEM / ML-DSA private-key CHOICE. */
export const DER_CONTEXT_0 = 0x80;

export type PemKind = 'private' | 'public';
export const PEM_LABELS = { private: 'PRIVATE KEY', public: 'PUBLIC KEY' } as const;
const PEM_PATTERN = /^-----BEGIN ([A-Z0-9 ]+)-----\r?\n([A-Za-z0-9+/=\r\n]+)-----END \1-----\s*$/;

/** One DER element. Every structure built here is far below 16 MiB. */
export function derTlv(tag: number, ...content: Uint8Array[]): Uint8Array {
  const body = concatBytes(...content);
  const n = body.byteLength;
  const length =
    n < 0x80
      ? [n]
      : n < 0x100
        ? [0x81, n]
        : n < 0x10000
          ? [0x82, n >> 8, n & 0xff]
          : [0x83, n >> 16, (n >> 8) & 0xff, n & 0xff];
  const out = concatBytes(Uint8Array.of(tag, ...length), body);
  // `body` may hold a private key: the copy in `out` is the caller's, this one is ours to clear.
  wipe(body);
  return out;
}

/** The DER content octets of a dotted OBJECT IDENTIFIER (arcs below 2^21). */
export function oidContent(dotted: string): Uint8Array {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const out: number[] = [first * 40 + second];
  for (const arc of rest) {
    if (arc >= 0x4000) out.push(0x80 | (arc >> 14));
    if (arc >= 0x80) out.push(0x80 | ((arc >> 7) & 0x7f));
    out.push(arc & 0x7f);
  }
  return Uint8Array.from(out);
}

/** PEM text (RFC 7468, 64-character lines) of DER bytes. */
export function derToPem(der: Uint8Array, kind: PemKind): string {
  const base64 = asBuffer(der).toString('base64');
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${PEM_LABELS[kind]}-----\n${lines.join('\n')}\n-----END ${PEM_LABELS[kind]}-----\n`;
}

/**
 * The DER bytes of one PEM block with the expected label. Only PKCS#8 (`PRIVATE KEY`) and SPKI
 * (`PUBLIC KEY`) are read; other labels (`EC PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`) are refused
 * with a hint rather than guessed at. `field` is the request field, named by the error.
 */
export function pemToDer(pem: string, kind: PemKind, field: string): Uint8Array {
  const label = PEM_LABELS[kind];
  const match = PEM_PATTERN.exec(pem);
  if (match === null || match[1] !== label) {
    throw invalidInput(
      `${field} as PEM must be one '-----BEGIN ${label}-----' block (${kind === 'private' ? 'PKCS#8, unencrypted: openssl pkcs8 -topk8 -nocrypt' : 'SPKI'})`,
      `/${field}`,
    );
  }
  return base64ToBytes((match[2] ?? '').replace(/\r?\n/g, ''), `/${field}`);
}

/** Thrown inside the reader; callers turn it into the error that names their field (no stack: never read). */
class MalformedDer extends StacklessError {
  constructor() {
    super('malformed DER');
  }
}

interface Element {
  readonly tag: number;
  readonly content: Uint8Array;
}

/** Reads the elements of `der` one after the other; each must be complete and minimally encoded. */
function readElements(der: Uint8Array): Element[] {
  const out: Element[] = [];
  let offset = 0;
  while (offset < der.byteLength) {
    const tag = der[offset];
    const first = der[offset + 1];
    if (tag === undefined || first === undefined || (tag & 0x1f) === 0x1f) throw new MalformedDer();
    let length: number;
    let start = offset + 2;
    if (first < 0x80) {
      length = first;
    } else {
      const octets = first & 0x7f;
      // 0x80 is BER's indefinite length; more than 3 length octets is far beyond any key.
      if (octets === 0 || octets > 3) throw new MalformedDer();
      length = 0;
      for (let i = 0; i < octets; i++) length = length * 256 + (der[start + i] ?? 0);
      // DER: the shortest form, so no leading zero octet and no long form below 128.
      if (der[start] === 0 || length < 0x80) throw new MalformedDer();
      start += octets;
    }
    const end = start + length;
    if (end > der.byteLength) throw new MalformedDer();
    out.push({ tag, content: der.subarray(start, end) });
    offset = end;
  }
  return out;
}

function expectOne(der: Uint8Array, tag: number): Uint8Array {
  const elements = readElements(der);
  const [only] = elements;
  if (elements.length !== 1 || only === undefined || only.tag !== tag) throw new MalformedDer();
  return only.content;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  // OIDs are public: an ordinary comparison is fine.
  return a.byteLength === b.byteLength && a.every((byte, i) => byte === b[i]);
}

/** AlgorithmIdentifier with absent parameters (the form every post-quantum OID here requires). */
function algorithmIdentifier(oid: Uint8Array): Uint8Array {
  return derTlv(DER_SEQUENCE, derTlv(DER_OID, oid));
}

/** SubjectPublicKeyInfo (RFC 5280 §4.1) with the raw key as the BIT STRING's content. */
export function spkiDer(oid: Uint8Array, publicKey: Uint8Array): Uint8Array {
  return derTlv(DER_SEQUENCE, algorithmIdentifier(oid), derTlv(DER_BIT_STRING, Uint8Array.of(0), publicKey));
}

/**
 * OneAsymmetricKey version 1 (RFC 5958, = PKCS#8 PrivateKeyInfo) with `privateKey` as the
 * content of its privateKey OCTET STRING, no attributes and no public key. The caller wipes it.
 */
export function pkcs8Der(oid: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const octets = derTlv(DER_OCTET_STRING, privateKey);
  try {
    return derTlv(DER_SEQUENCE, Uint8Array.of(DER_INTEGER, 1, 0), algorithmIdentifier(oid), octets);
  } finally {
    wipe(octets);
  }
}

/** The OID content and the privateKey octets of a PKCS#8 v1 blob, or why it is not one. */
export interface ParsedKey {
  readonly oid: Uint8Array;
  /** PKCS#8: the privateKey OCTET STRING's content. SPKI: the BIT STRING's key bytes. */
  readonly key: Uint8Array;
}

function parseAlgorithm(content: Uint8Array): Uint8Array {
  const [oid, ...parameters] = readElements(content);
  // Parameters must be absent (FIPS 203/204/205 and X-Wing OIDs): not even a NULL.
  if (oid === undefined || oid.tag !== DER_OID || parameters.length > 0) throw new MalformedDer();
  return oid.content;
}

/**
 * Reads PKCS#8 DER: SEQUENCE { INTEGER 0, AlgorithmIdentifier, OCTET STRING }, nothing more
 * (no attributes, no embedded public key: none of the formats here writes them). The returned
 * key is a view into `der`.
 */
export function parsePkcs8(der: Uint8Array, field: string): ParsedKey {
  try {
    const [version, algorithm, privateKey, ...rest] = readElements(expectOne(der, DER_SEQUENCE));
    if (version?.tag !== DER_INTEGER || !equalBytes(version.content, Uint8Array.of(0))) throw new MalformedDer();
    if (algorithm?.tag !== DER_SEQUENCE || privateKey?.tag !== DER_OCTET_STRING || rest.length > 0)
      throw new MalformedDer();
    return { oid: parseAlgorithm(algorithm.content), key: privateKey.content };
  } catch (error) {
    if (error instanceof MalformedDer)
      throw invalidInput(`${field} is not a readable PEM PKCS#8 private key`, `/${field}`);
    throw error;
  }
}

/** Reads SPKI DER: SEQUENCE { AlgorithmIdentifier, BIT STRING with no unused bits }. */
export function parseSpki(der: Uint8Array, field: string): ParsedKey {
  try {
    const [algorithm, bits, ...rest] = readElements(expectOne(der, DER_SEQUENCE));
    if (algorithm?.tag !== DER_SEQUENCE || bits?.tag !== DER_BIT_STRING || rest.length > 0 || bits.content[0] !== 0)
      throw new MalformedDer();
    return { oid: parseAlgorithm(algorithm.content), key: bits.content.subarray(1) };
  } catch (error) {
    if (error instanceof MalformedDer)
      throw invalidInput(`${field} is not a readable PEM SPKI public key`, `/${field}`);
    throw error;
  }
}

/**
 * The elements inside a PKCS#8 privateKey OCTET STRING, for the CHOICE forms of the ML-KEM and
 * ML-DSA private keys; undefined when the octets are not exactly a sequence of DER elements.
 */
export function readInnerElements(octets: Uint8Array): { tag: number; content: Uint8Array }[] | undefined {
  try {
    return readElements(octets);
  } catch (error) {
    if (error instanceof MalformedDer) return undefined;
    throw error;
  }
}

/** Whether two OIDs (content octets) are the same. */
export function sameOid(a: Uint8Array, b: Uint8Array): boolean {
  return equalBytes(a, b);
}
