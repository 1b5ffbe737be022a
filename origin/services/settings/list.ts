import { type Env, SECRET_VARIABLE, envSchema } from '../../env.ts';
import { SECTIONS, OTHER_SECTION, sectionOf } from './sections.ts';

export interface SettingRow {
  variable: string;
  /** The value in effect, as text; null when unset with no default. A secret: `configured` or `not configured`. */
  value: string | null;
  /** `env` when the variable is set in the environment, else `default`. */
  source: 'env' | 'default';
  /** The variable's text as set; null when unset, and always null for a secret. */
  env_value: string | null;
  secret: boolean;
}

export interface SettingsSection {
  id: string;
  title: string;
  description: string;
  rows: SettingRow[];
}

/**
 * Every variable the origin reads (the keys of the env schema, so a new one
 * appears here by itself), grouped into sections, with the value in effect
 * and where it came from. A secret's value is never shown, only whether it
 * is set.
 */
export function listSettings(env: Env, source: Record<string, string | undefined>): { sections: SettingsSection[] } {
  const sections = new Map<string, SettingsSection>();
  for (const spec of [...SECTIONS, OTHER_SECTION]) sections.set(spec.id, { id: spec.id, title: spec.title, description: spec.description, rows: [] });
  for (const variable of Object.keys(envSchema.shape).sort()) {
    const raw = source[variable];
    const secret = SECRET_VARIABLE.test(variable);
    const effective = (env as Record<string, unknown>)[variable];
    sections.get(sectionOf(variable).id)!.rows.push({
      variable,
      value: secret ? (raw ? 'configured' : 'not configured') : shown(effective, raw),
      source: raw === undefined ? 'default' : 'env',
      env_value: secret ? null : (raw ?? null),
      secret,
    });
  }
  return { sections: [...sections.values()].filter((section) => section.rows.length > 0) };
}

/** The parsed value as text; a structured one (a parsed list or limit) is shown as the text it was set with. */
function shown(value: unknown, raw: string | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item !== 'object')) return value.join(',');
  return raw ?? JSON.stringify(value);
}
