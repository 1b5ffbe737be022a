/** The origin configurations a streaming scenario measures, one origin process each. */
export interface StreamPath {
  key: string;
  label: string;
  env: Record<string, string>;
}

/** Serialization in the origin (the JS serializers over the driver's values). */
export const JS_PATH: StreamPath = { key: 'js', label: 'JS serializer', env: { SLUICE_STREAM_PUSHDOWN: '0' } };

/** The database renders the lines itself where its driver can (`Driver.streamLines`). */
export const PUSHDOWN_PATH: StreamPath = { key: 'pushdown', label: 'engine push-down', env: { SLUICE_STREAM_PUSHDOWN: '1' } };
