/** Placeholder: being implemented. Its identifier list feeds the algorithm registry. */
export const KEY_WRAP_ALGORITHM_IDS: readonly string[] = [];
