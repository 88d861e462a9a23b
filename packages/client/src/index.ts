/** Placeholder: the typed client is being written. */
export {};
