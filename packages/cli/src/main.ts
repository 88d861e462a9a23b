/** Placeholder: the command-line tool is being written. */
export {};
