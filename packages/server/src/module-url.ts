/**
 * The URL of a module beside `base`, with base's own extension: `.ts` when the service runs from
 * its sources, `.js` when it runs from its build (the compiler rewrites imports, not URLs).
 */
export function moduleUrl(path: string, base: string): URL {
  return new URL(`${path}${base.endsWith('.ts') ? '.ts' : '.js'}`, base);
}
