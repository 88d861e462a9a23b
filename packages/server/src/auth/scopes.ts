/** The scopes a route may require (SECURITY.md). A caller with `crypto:*` (or no scope claim at all) has every one. */
export const SCOPES = [
  'crypto:hash',
  'crypto:encrypt',
  'crypto:decrypt',
  'crypto:sign',
  'crypto:verify',
  'crypto:kdf',
  'crypto:mac',
  'crypto:keys',
  'crypto:pq',
] as const;

export type Scope = (typeof SCOPES)[number];
export const ALL_SCOPES = 'crypto:*';

/**
 * Every post-quantum algorithm needs it, on whichever route reaches the algorithm (besides that
 * route's own scope), so that withholding it keeps a client off that work altogether.
 */
export const PQ_SCOPE: Scope = 'crypto:pq';

export type Grant = 'all' | ReadonlySet<Scope>;

export function grants(grant: Grant, scope: Scope): boolean {
  return grant === 'all' || grant.has(scope);
}

/** Reads `scope` (space-separated) or `scopes` (array) from JWT claims; no claim at all grants everything. */
export function grantFromClaims(claims: Record<string, unknown>): Grant | 'malformed' {
  let values: unknown[];
  if (claims.scope !== undefined) {
    if (typeof claims.scope !== 'string') return 'malformed';
    values = claims.scope.split(' ').filter((value) => value !== '');
  } else if (claims.scopes !== undefined) {
    if (!Array.isArray(claims.scopes)) return 'malformed';
    values = claims.scopes;
  } else {
    return 'all';
  }
  if (values.some((value) => typeof value !== 'string')) return 'malformed';
  if (values.includes(ALL_SCOPES)) return 'all';
  // Scopes this service does not know are ignored, not an error: a token may serve several services.
  return new Set(values.filter((value): value is Scope => (SCOPES as readonly unknown[]).includes(value)));
}
