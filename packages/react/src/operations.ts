/** Hooks for the common operations: useCrypto with the method named. */
import { useCrypto, type CryptoCall } from './use-crypto.ts';

/** POST /v2/hash: `data.digest` is the hex digest. */
export const useHash = (): CryptoCall<'hash'> => useCrypto('hash');
/** POST /v2/encrypt (AEAD with a key the caller holds). */
export const useEncrypt = (): CryptoCall<'encrypt'> => useCrypto('encrypt');
/** POST /v2/decrypt */
export const useDecrypt = (): CryptoCall<'decrypt'> => useCrypto('decrypt');
/** POST /v2/sign */
export const useSign = (): CryptoCall<'sign'> => useCrypto('sign');
/** POST /v2/verify: `data.valid` is false for a signature that does not verify (not an error). */
export const useVerify = (): CryptoCall<'verify'> => useCrypto('verify');
