/** Placeholder: being implemented. Its identifier list feeds the algorithm registry. */
export const SIGNATURE_ALGORITHM_IDS: readonly string[] = [];
