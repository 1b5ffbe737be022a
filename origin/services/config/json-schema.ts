import { z } from 'zod';
import { configFileSchema } from './file.ts';

/** Where the published schema lives in the repository; editors are pointed at it. */
export const JSON_SCHEMA_PATH = 'docs/reference/sluice-config.schema.json';

/**
 * The configuration file's JSON Schema, generated from the zod schema apply
 * reads files with (so from the resources' own), as editors validate a file
 * as written: `scripts/config-schema.ts` writes it, a test keeps the
 * committed copy equal to it.
 */
export function configJsonSchema(): Record<string, unknown> {
  const { $schema, ...schema } = z.toJSONSchema(configFileSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    $schema,
    title: 'Sluice configuration file (format_version 1)',
    description: 'Objects a Sluice server holds, applied with POST /api/v1/config/apply, sluice config apply or SLUICE_CONFIG_FILE. See docs/reference/config.md.',
    ...schema,
  };
}

/** The schema as the committed file holds it. */
export const configJsonSchemaText = (): string => `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
