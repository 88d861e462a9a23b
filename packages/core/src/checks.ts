/**
 * Labelled checks for core entry points (`checkLength(key, 32, 'key')`). The label is the name of
 * the request field that carries the value, so a failure points the caller at it.
 */
import { invalidInput } from './errors.ts';

export function checkLength(bytes: Uint8Array, expected: number | readonly number[], label: string): Uint8Array {
  const allowed = typeof expected === 'number' ? [expected] : expected;
  if (!allowed.includes(bytes.byteLength)) {
    const what =
      allowed.length === 1 ? `${allowed[0]} bytes` : `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)} bytes`;
    throw invalidInput(`${label} must be ${what} (got ${bytes.byteLength})`, `/${label}`);
  }
  return bytes;
}

export function checkInteger(value: number, min: number, max: number, label: string): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidInput(`${label} must be an integer from ${min} to ${max}`, `/${label}`);
  }
  return value;
}
