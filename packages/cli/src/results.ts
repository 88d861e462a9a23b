/** Shapes of output shared by several commands. */
import { EXIT, type Output } from './command.ts';

/** A verification's answer: `valid` or `invalid` in plain form, and exit status 3 when invalid. */
export function verdict(valid: boolean, json: unknown): Output {
  return { json, plain: valid ? 'valid' : 'invalid', exitCode: valid ? EXIT.OK : EXIT.NOT_VALID };
}

/** Several values, one per line; a JWK (an object) as one line of JSON. */
export function lines(...values: unknown[]): string {
  return values.map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join('\n');
}
