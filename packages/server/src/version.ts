import { createRequire } from 'node:module';

/** The service version: the server package's, which every package shares (lockstep releases). */
export const SERVICE_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string })
  .version;
