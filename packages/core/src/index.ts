export * from './errors.ts';
export * from './codec.ts';
export * from './ct.ts';
export * from './hash.ts';
export * from './registry.ts';
