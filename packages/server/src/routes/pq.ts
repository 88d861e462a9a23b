import type { FastifyPluginAsync } from 'fastify';

/** Placeholder: these routes are being implemented. */
export const pqRoutes: FastifyPluginAsync = async () => {};
