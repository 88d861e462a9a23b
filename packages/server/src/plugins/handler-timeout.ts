/**
 * HANDLER_TIMEOUT_MS for the routes that ask for it with `config: { handlerTimeout: true }`: the
 * routes whose cost is variable and can be large. Their handlers are wrapped as they are declared
 * (../handler-timeout.ts says why not Fastify's own handlerTimeout); every other route runs
 * without a timer. Routes declare this plugin as a dependency.
 */
import fp from 'fastify-plugin';
import { withHandlerTimeout } from '../handler-timeout.ts';
import '../route-config.ts';

export interface HandlerTimeoutOptions {
  timeoutMs: number;
}

export default fp<HandlerTimeoutOptions>(
  async function handlerTimeout(app, { timeoutMs }) {
    app.addHook('onRoute', (route) => {
      if (route.config?.handlerTimeout === true) route.handler = withHandlerTimeout(route.handler, timeoutMs);
    });
  },
  { name: 'handler-timeout' },
);
