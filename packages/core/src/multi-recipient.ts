/** Placeholder: being implemented. Its identifier list feeds the algorithm registry. */
export const KEM_ALGORITHM_IDS: readonly string[] = [];
