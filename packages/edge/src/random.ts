/** Fresh random bytes from the platform's CSPRNG (crypto.getRandomValues, in every target runtime). */
export function randomBytes(length: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(length));
}
