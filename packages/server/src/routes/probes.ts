/**
 * Infrastructure probes: public, and exempt from the rate limit, so that a flood from the
 * orchestrator's address can never make a healthy pod look dead. (/metrics is served, rate
 * limited, by plugins/metrics-endpoint.ts.)
 */
import { Type } from 'typebox';
import fp from 'fastify-plugin';
import { HealthResponse, LiveResponse, ProblemSchema, ReadyResponse } from '@crypto-service/protocol';
import { buildProblem, instanceOf } from '../errors.ts';
import type { Readiness } from '../readiness.ts';
import '../route-config.ts';

export interface ProbeOptions {
  readiness: Readiness;
}

const probeConfig = { public: true, rateLimitCost: false } as const;

export const probeRoutes = fp<ProbeOptions>(
  async function probeRoutes(app, { readiness }) {
    const uptime = () => Math.round(process.uptime() * 1000) / 1000;

    app.get(
      '/live',
      {
        config: probeConfig,
        schema: {
          tags: ['meta'],
          summary: 'Liveness: the process answers',
          security: [],
          response: { 200: LiveResponse },
        },
      },
      async () => ({ status: 'alive' as const, uptime: uptime() }),
    );

    app.get(
      '/health',
      {
        config: probeConfig,
        schema: {
          tags: ['meta'],
          summary: 'Health, as the typed client probes it',
          security: [],
          response: { 200: HealthResponse },
        },
      },
      async () => ({ status: 'ok' as const, uptime: uptime() }),
    );

    const NotReady = Type.Intersect([ProblemSchema, Type.Object({ checks: ReadyResponse.properties.checks })]);
    app.get(
      '/ready',
      {
        config: probeConfig,
        schema: {
          tags: ['meta'],
          summary: 'Readiness: every check passes and no shutdown is under way',
          security: [],
          response: { 200: ReadyResponse, 503: NotReady },
        },
      },
      async (request, reply) => {
        const { ready, checks, disabled } = readiness.report();
        if (ready) return { status: 'ready' as const, checks, disabled };
        const failing = Object.keys(checks).filter((name) => checks[name] === 'fail');
        const problem = buildProblem('SERVICE_UNAVAILABLE', `not ready: ${failing.join(', ')}`, instanceOf(request));
        return reply
          .code(503)
          .type('application/problem+json')
          .send({ ...problem, checks });
      },
    );
  },
  { name: 'probe-routes', dependencies: ['metrics'], encapsulate: true },
);
