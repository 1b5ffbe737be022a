import type { ClickHouseSettings } from '@clickhouse/client';

/**
 * Every setting the value rules depend on, sent with every statement so that a
 * server's or a user profile's defaults never change what a value becomes
 * (types.ts reads the output they produce).
 */
export const OUTPUT_SETTINGS: ClickHouseSettings = {
  output_format_json_quote_64bit_integers: 1,
  output_format_json_quote_decimals: 1,
  output_format_json_quote_denormals: 1,
  output_format_json_quote_64bit_floats: 0,
  output_format_decimal_trailing_zeros: 1,
  output_format_json_named_tuples_as_objects: 1,
  output_format_json_validate_utf8: 1,
  date_time_output_format: 'iso',
  // A client that goes away stops its read on the server, not only on our side.
  cancel_http_readonly_queries_on_client_close: 1,
};

/** Read-only, enforced by the server: writes, DDL and setting changes inside the statement are refused. */
export const READ_ONLY: ClickHouseSettings = { readonly: '1' };

/**
 * The server-side time limit: a backstop to the driver's own timer (which
 * also covers a stalled reader), in whole seconds rounded up.
 */
export function timeLimit(timeoutMs: number): ClickHouseSettings {
  if (timeoutMs <= 0) return {};
  return { max_execution_time: Math.ceil(timeoutMs / 1000), timeout_overflow_mode: 'throw' };
}

/**
 * A connection's own `options.settings`, under ours: they may tune the
 * server (memory, threads) but never the output, the read-only mode or the
 * time limit.
 */
export function userSettings(options: Record<string, unknown>): ClickHouseSettings {
  const given = options.settings;
  if (!given || typeof given !== 'object' || Array.isArray(given)) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(given as Record<string, unknown>)) {
    if (key in OUTPUT_SETTINGS || key === 'readonly' || key === 'max_execution_time' || key === 'timeout_overflow_mode') continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[key] = value;
  }
  return out as ClickHouseSettings;
}
