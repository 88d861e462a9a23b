import type { FastifyPluginAsync } from 'fastify';

/** Placeholder: these routes are being implemented. */
export const multiRecipientRoutes: FastifyPluginAsync = async () => {};
