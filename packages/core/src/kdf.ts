/** Placeholder: being implemented. Its identifier list feeds the algorithm registry. */
export const KDF_ALGORITHM_IDS: readonly string[] = [];
