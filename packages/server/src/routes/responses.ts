/** Response schemas shared by every route: the problem shape for each error class. */
import { ProblemSchema } from '@crypto-service/protocol';

export const problemResponses = {
  '4xx': ProblemSchema,
  '5xx': ProblemSchema,
} as const;
