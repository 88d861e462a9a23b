/**
 * Where the shared test vectors are: CRYPTO_VECTORS_DIR, or ../shared/vectors beside the checkout.
 * Returns undefined when neither exists (a clone on its own has no vectors).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export function vectorsDir(): string | undefined {
  const candidates = [process.env.CRYPTO_VECTORS_DIR, resolve(import.meta.dirname, '../../shared/vectors')];
  return candidates.find((dir): dir is string => dir !== undefined && dir !== '' && existsSync(dir));
}
