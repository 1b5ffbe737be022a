export * from './connections.ts';
export * from './deleted-connections.ts';
export * from './audit-log.ts';
export * from './examples-state.ts';
export * from './queries.ts';
export * from './query-versions.ts';
export * from './runs.ts';
