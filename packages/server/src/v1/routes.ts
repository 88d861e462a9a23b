import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../config.ts';

/** Placeholder: the deprecated /v1 OpenPGP routes are being implemented. */
export const v1Routes: FastifyPluginAsync<{ config: Config }> = async () => {};
