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

/** The database renders the lines itself where its driver can (`Driver.streamLines`), with the connection's defaults. */
export const PUSHDOWN_PATH: StreamPath = { key: 'pushdown', label: 'engine push-down', env: { SLUICE_STREAM_PUSHDOWN: '1' } };

/**
 * Push-down with the stream on one DuckDB thread (`stream_threads: 1`); the
 * default is the number of cores, at most 4, as the baseline COPY runs on
 * every core (ADR 0017).
 */
export const PUSHDOWN_ONE_THREAD_PATH: StreamPath = {
  key: 'pushdown-one-thread',
  label: 'engine push-down, 1 DuckDB thread',
  env: { SLUICE_STREAM_PUSHDOWN: '1' },
  duckOptions: { stream_threads: 1 },
};
