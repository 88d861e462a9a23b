/**
 * Routes that take a key in one of several field forms (an X-Wing key whole or as its parts, in a
 * body or in each multi-recipient entry) decide here which form an object uses. Mixing forms, or
 * giving only part of one, is a 400 that lists the fields each form needs, so the caller learns
 * the fix from the error.
 */
import { invalidInput } from '@crypto-service/core';

function list(names: readonly string[]): string {
  return names.length === 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/**
 * The index of the one form whose fields the object gives in full. `at` is the object's path in the
 * body (`/recipients/2`), empty for the body itself.
 */
export function chooseForm(body: Record<string, unknown>, forms: readonly (readonly string[])[], at = ''): number {
  const expected = `give ${forms.map(list).join(', or ')}`;
  const given = forms.map((fields) => fields.filter((name) => body[name] !== undefined));
  const touched = forms.flatMap((_, index) => ((given[index] ?? []).length > 0 ? [index] : []));
  const [first, second] = touched;
  if (second !== undefined) {
    throw invalidInput(
      `${forms.length === 2 ? 'the two' : 'these'} forms cannot be mixed: ${expected}`,
      `${at}/${given[second]?.[0]}`,
    );
  }
  if (first === undefined) throw invalidInput(`no key given: ${expected}`, at === '' ? '/' : at);
  const missing = (forms[first] ?? []).filter((name) => body[name] === undefined);
  if (missing.length === 0) return first;
  throw invalidInput(
    `${list(missing)} ${missing.length === 1 ? 'is' : 'are'} missing: ${expected}`,
    `${at}/${missing[0]}`,
  );
}
