/**
 * Web Crypto's SubtleCrypto, where the runtime has it (every browser in a secure context, Workers,
 * Deno, Bun, Node). Callers fall back to @noble when it is missing or lacks an algorithm.
 */
export type Subtle = typeof globalThis.crypto.subtle;
/** A key that Web Crypto imported. */
export type WebCryptoKey = Awaited<ReturnType<Subtle['importKey']>>;

export function subtleCrypto(): Subtle | undefined {
  return globalThis.crypto?.subtle;
}

/** An ArrayBuffer-backed copy, the type SubtleCrypto's BufferSource parameters take. */
export function bufferSource(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(bytes);
}
