import type { JsonSchema } from '../discovery/parameter-schema.ts';

/** Values a description names per parameter; the rest are counted, and the input schema's `enum` holds them all. */
const SHOWN = 20;

/**
 * A sentence naming each parameter's allowed values, from its schema's
 * `enum` (a rule's `enum`, or the values a `values_query` gives it), so an
 * agent that reads only descriptions does not guess: `Allowed values:
 * rating: "G", "PG"; region: "eu", ... and 4 more.`. Empty when no
 * parameter has them.
 */
export function allowedValues(properties: Record<string, JsonSchema>): string {
  const named = Object.entries(properties).flatMap(([name, schema]) => {
    const values = schema.enum;
    if (!Array.isArray(values) || values.length === 0) return [];
    const shown = values.slice(0, SHOWN).map((value) => JSON.stringify(value)).join(', ');
    return [`${name}: ${shown}${values.length > SHOWN ? ` and ${values.length - SHOWN} more` : ''}`];
  });
  return named.length === 0 ? '' : `Allowed values: ${named.join('; ')}.`;
}
