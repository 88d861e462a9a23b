/** Placeholder: being implemented. Its identifier list feeds the algorithm registry. */
export const MAC_ALGORITHM_IDS: readonly string[] = [];
