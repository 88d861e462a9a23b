/** Placeholder: the request and response schemas of this family are being written. */
export {};
