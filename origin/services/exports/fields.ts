import { z } from 'zod';
import { assertObjectName } from '../names.ts';

/**
 * The bodies the export verbs accept. Objects are strict, so an unknown field
 * is refused with `unknown_field`. What depends on other objects (the
 * destination, the saved query and its rules) is checked by `checks.ts`.
 */

export const EXPORT_FORMATS = ['parquet', 'csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Where a run's object goes under the destination's prefix, unless the export says otherwise. */
export const DEFAULT_PATH = '{name}/{date}/{run}';

const format = z.enum(EXPORT_FORMATS, { error: `format must be one of ${EXPORT_FORMATS.join(', ')}` });

/** A parameter's plain value: what a JSON body may bind (no arrays or objects). */
const plainValue = z.union([z.string(), z.number(), z.boolean(), z.null()], { error: 'must be a string, a number, a boolean or null' });

const incremental = z.strictObject({
  column: z.string().min(1, 'incremental.column must name a result column'),
  parameter: z.string().min(1, 'incremental.parameter must name a parameter of the query'),
  start: plainValue,
});

const timeout = z.number({ error: 'timeout must be a number of seconds' }).int('timeout must be a whole number of seconds').min(1, 'timeout must be at least 1 second');

const settingsShape = {
  query: z.string().min(1, 'query must name a saved query'),
  params: z.record(z.string(), plainValue),
  format,
  destination: z.string().min(1, 'destination must name a destination'),
  path: z.string().min(1, 'path must not be empty'),
  incremental: incremental.nullable(),
  skip_empty: z.boolean(),
  timeout: timeout.nullable(),
};

/** POST /api/v1/exports: `name`, `query`, `format` and `destination` are required. */
export const createFields = z.strictObject({
  name: z.string(),
  query: settingsShape.query,
  format: settingsShape.format,
  destination: settingsShape.destination,
  params: settingsShape.params.optional(),
  path: settingsShape.path.optional(),
  incremental: settingsShape.incremental.optional(),
  skip_empty: settingsShape.skip_empty.optional(),
  timeout: settingsShape.timeout.optional(),
});
export type CreateFields = z.infer<typeof createFields>;

/** PATCH /api/v1/exports/{name}: absent keeps, null clears an optional field; `watermark` rewinds (a value) or resets (null). */
export const updateFields = z.strictObject({
  name: z.string().optional(),
  query: settingsShape.query.optional(),
  format: settingsShape.format.optional(),
  destination: settingsShape.destination.optional(),
  params: settingsShape.params.nullable().optional(),
  path: settingsShape.path.nullable().optional(),
  incremental: settingsShape.incremental.optional(),
  skip_empty: settingsShape.skip_empty.optional(),
  timeout: settingsShape.timeout.optional(),
  watermark: plainValue.optional(),
});
export type UpdateFields = z.infer<typeof updateFields>;

/** The settings an export row holds, after defaults. */
export interface ExportFields {
  query: string;
  params: Record<string, unknown>;
  format: ExportFormat;
  destination: string;
  path: string;
  incremental: { column: string; parameter: string; start: unknown } | null;
  skip_empty: boolean;
  timeout: number | null;
}

export const assertValidName = (name: string): void => assertObjectName('Export', name);

export function withDefaults(input: CreateFields): ExportFields {
  return {
    query: input.query,
    params: input.params ?? {},
    format: input.format,
    destination: input.destination,
    path: input.path ?? DEFAULT_PATH,
    incremental: input.incremental ?? null,
    skip_empty: input.skip_empty ?? true,
    timeout: input.timeout ?? null,
  };
}
