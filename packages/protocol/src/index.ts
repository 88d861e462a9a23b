export * from './errors.ts';
export * from './common.ts';
export * from './hash.ts';
export * from './probes.ts';
