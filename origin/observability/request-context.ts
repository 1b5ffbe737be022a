/** What a log line or a metric needs to know about the request it belongs to. */
export interface RequestScope {
  request_id: string;
  /** `admin`, a key's or administrator's name, or `-`. */
  key: string;
}

/** The scope of lines written outside any request (startup, timers). */
export const NO_REQUEST: RequestScope = Object.freeze({ request_id: '-', key: '-' });
