/** Placeholder: being implemented. Its identifier list feeds the algorithm registry. */
export const PASSWORD_ALGORITHM_IDS: readonly string[] = [];
