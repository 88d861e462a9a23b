/**
 * Field paths: `card.number` (or the JSON pointer `/card/number`) names a member of a JSON
 * object body. The JSON pointer (RFC 6901) of the path is what a field's ciphertext is bound to.
 */
export interface FieldPath {
  /** The member names from the body's root. */
  segments: readonly string[];
  /** The RFC 6901 JSON pointer, e.g. `/card/number`: the field's associated data. */
  pointer: string;
}

export function parseFieldPath(path: string): FieldPath {
  const segments = path.startsWith('/')
    ? path
        .slice(1)
        .split('/')
        .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    : path.split('.');
  if (path === '' || segments.some((segment) => segment === '')) throw new TypeError(`invalid field path: ${path}`);
  return {
    segments,
    pointer: '/' + segments.map((segment) => segment.replaceAll('~', '~0').replaceAll('/', '~1')).join('/'),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object holding the field and its member name, or undefined when the body has no such field. */
export function locate(body: unknown, path: FieldPath): { parent: Record<string, unknown>; name: string } | undefined {
  let current = body;
  for (const segment of path.segments.slice(0, -1)) {
    if (!isObject(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  const name = path.segments.at(-1)!;
  if (!isObject(current) || !Object.hasOwn(current, name)) return undefined;
  return { parent: current, name };
}
