/**
 * Routes that take a key in one of several field forms (the X-Wing key whole or as its parts; a
 * multi-recipient credential of one of three kinds) decide here which form a body uses. Mixing
 * forms, or giving only part of one, is a 400 that lists the fields each form needs, so the caller
 * learns the fix from the error.
 */
import { invalidInput } from '@crypto-service/core';

function list(names: readonly string[]): string {
  return names.length === 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** The index of the one form whose fields the body gives in full. */
export function chooseForm(body: Record<string, unknown>, forms: readonly (readonly string[])[]): number {
  const expected = `give ${forms.map(list).join(', or ')}`;
  const given = forms.map((fields) => fields.filter((name) => body[name] !== undefined));
  const touched = forms.flatMap((_, index) => ((given[index] ?? []).length > 0 ? [index] : []));
  const [first, second] = touched;
  if (second !== undefined) {
    throw invalidInput(
      `${forms.length === 2 ? 'the two' : 'these'} forms cannot be mixed: ${expected}`,
      `/${given[second]?.[0]}`,
    );
  }
  if (first === undefined) throw invalidInput(`no key given: ${expected}`, '/');
  const missing = (forms[first] ?? []).filter((name) => body[name] === undefined);
  if (missing.length === 0) return first;
  throw invalidInput(`${list(missing)} ${missing.length === 1 ? 'is' : 'are'} missing: ${expected}`, `/${missing[0]}`);
}
