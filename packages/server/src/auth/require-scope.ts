/**
 * Scopes that follow what a request does rather than its path: a route whose body chooses the
 * algorithm checks, once it knows, that the credential may use it. The route's own scope was
 * checked before the body was read (plugins/authentication.ts).
 */
import type { FastifyRequest } from 'fastify';
import { isPostQuantumKeyAlgorithm } from '@crypto-service/core';
import { ApiError } from '../errors.ts';
import { grants, PQ_SCOPE, type Scope } from './scopes.ts';

/** Throws the 403 of a credential that lacks `scope`; `why` says what needed it. */
export function requireScope(request: FastifyRequest, scope: Scope, why: string): void {
  const principal = request.principal;
  // No principal on a scoped route would be a pipeline bug: refuse rather than let it through.
  if (principal === null || !grants(principal.grant, scope)) {
    throw new ApiError('FORBIDDEN', `this credential lacks the scope ${scope}, which ${why} needs`);
  }
}

/** Requires `crypto:pq` when `algorithm` is a post-quantum one (ML-KEM, X-Wing, ML-DSA, SLH-DSA). */
export function requireScopeForAlgorithm(request: FastifyRequest, algorithm: string): void {
  if (isPostQuantumKeyAlgorithm(algorithm)) requireScope(request, PQ_SCOPE, algorithm);
}

/** Requires `crypto:pq` for work that is always post-quantum (the X-Wing sealed box, a hybrid slot). */
export function requirePostQuantumScope(request: FastifyRequest, what: string): void {
  requireScope(request, PQ_SCOPE, what);
}
