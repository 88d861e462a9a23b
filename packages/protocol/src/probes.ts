import { Type, type Static } from 'typebox';
import { ALGORITHM_REGISTRY } from '@crypto-service/core';

export const LiveResponse = Type.Object({ status: Type.Literal('alive'), uptime: Type.Number() });
export type LiveResponse = Static<typeof LiveResponse>;

export const HealthResponse = Type.Object({ status: Type.Literal('ok'), uptime: Type.Number() });
export type HealthResponse = Static<typeof HealthResponse>;

export const ReadyResponse = Type.Object({
  status: Type.Enum(['ready', 'not-ready']),
  checks: Type.Record(Type.String(), Type.Enum(['pass', 'fail'])),
  /** Algorithms out of service (`family/id`) because their start-up self-test failed; their routes answer 503. */
  disabled: Type.Optional(
    Type.Array(Type.String(), {
      description: 'Algorithms (family/id) whose start-up known-answer test failed: requests that use them answer 503',
    }),
  ),
});
export type ReadyResponse = Static<typeof ReadyResponse>;

const families = Object.fromEntries(
  Object.keys(ALGORITHM_REGISTRY).map((family) => [family, Type.Array(Type.String())]),
) as Record<keyof typeof ALGORITHM_REGISTRY, ReturnType<typeof Type.Array<ReturnType<typeof Type.String>>>>;

export const AlgorithmsResponse = Type.Object({ data: Type.Object(families) });
export type AlgorithmsResponse = { data: { [Family in keyof typeof ALGORITHM_REGISTRY]: string[] } };
