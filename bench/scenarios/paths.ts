import { cpus } from 'node:os';

/** The origin configurations a streaming scenario measures, one origin process each. */
export interface StreamPath {
  key: string;
  label: string;
  env: Record<string, string>;
  /** Driver options of the DuckDB connection (the default when absent). */
  duckOptions?: Record<string, unknown>;
}

/** Serialization in the origin (the JS serializers over the driver's values). */
export const JS_PATH: StreamPath = { key: 'js', label: 'JS serializer', env: { SLUICE_STREAM_PUSHDOWN: '0' } };

/** The database renders the lines itself where its driver can (`Driver.streamLines`). */
export const PUSHDOWN_PATH: StreamPath = { key: 'pushdown', label: 'engine push-down', env: { SLUICE_STREAM_PUSHDOWN: '1' } };

/**
 * Push-down with the DuckDB connection's `threads` at the number of cores,
 * as the baseline COPY runs (DuckDB's own default); the connection default
 * is 1 thread.
 */
export const PUSHDOWN_THREADS_PATH: StreamPath = {
  key: 'pushdown-threads',
  label: `engine push-down, ${cpus().length} DuckDB threads`,
  env: { SLUICE_STREAM_PUSHDOWN: '1' },
  duckOptions: { threads: cpus().length },
};
