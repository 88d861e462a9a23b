/** Placeholder: being implemented. Its identifier list feeds the algorithm registry. */
export const SEALED_BOX_ALGORITHM_IDS: readonly string[] = [];
