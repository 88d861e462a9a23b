/** Placeholder: being implemented. Its identifier list feeds the algorithm registry. */
export const KEY_GENERATION_IDS: readonly string[] = [];
