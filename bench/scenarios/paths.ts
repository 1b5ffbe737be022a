/** The origin configurations a streaming scenario measures, one origin process each. */
export interface StreamPath {
  key: string;
  label: string;
  env: Record<string, string>;
}

export const STREAM_PATHS: StreamPath[] = [{ key: 'js', label: 'JS serializer', env: {} }];
