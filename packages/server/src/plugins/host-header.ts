/**
 * An HTTP/1.1 request without a Host header is refused (RFC 9112 §3.2) as a problem with the
 * usual headers. Node would answer it itself with a bare 400, before any hook; app.ts turns that
 * off (requireHostHeader: false) so that the refusal comes from here, after the security-header
 * and rate-limit stages.
 */
import fp from 'fastify-plugin';
import { ApiError } from '../errors.ts';

const MISSING_HOST = 'an HTTP/1.1 request must carry a Host header';

export default fp(
  async function hostHeader(app) {
    app.addHook('onRequest', (request, _reply, done) => {
      const raw = request.raw;
      if (raw.headers.host === undefined && raw.httpVersionMajor === 1 && raw.httpVersionMinor >= 1) {
        return done(new ApiError('VALIDATION_FAILED', MISSING_HOST));
      }
      done();
    });
  },
  { name: 'host-header' },
);
