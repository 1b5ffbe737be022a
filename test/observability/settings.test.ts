import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envSchema } from '../../origin/env.ts';
import { type Observed, expectNoSecrets, startObserved } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/**
 * GET /api/v1/settings: every variable the server reads, in sections, with
 * the value in effect, where it came from and the text it was set with; a
 * secret only as configured or not. Administrators with `settings.read`
 * only.
 */

let o: Observed;
let settings: { sections: Array<{ id: string; title: string; description: string; rows: Row[] }> };

interface Row {
  variable: string;
  value: string | null;
  source: 'env' | 'default';
  env_value: string | null;
  secret: boolean;
}

beforeAll(async () => {
  o = await startObserved({ SLUICE_QUERY_TIMEOUT: '45', SLUICE_ALLOW_WRITES: 'yes' });
  const res = await o.api('GET', '/api/v1/settings');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  settings = res.body;
});
afterAll(async () => {
  await o?.stop();
});

const rows = () => settings.sections.flatMap((section) => section.rows);
const row = (variable: string) => rows().find((r) => r.variable === variable)!;
const sectionOf = (variable: string) => settings.sections.find((section) => section.rows.some((r) => r.variable === variable))?.id;

describe('shape', () => {
  it('sections of {id, title, description, rows}; rows of {variable, value, source, env_value, secret}', () => {
    expect(settings.sections.length).toBeGreaterThan(1);
    for (const section of settings.sections) {
      expect(Object.keys(section).sort()).toEqual(['description', 'id', 'rows', 'title']);
      expect(section.rows.length).toBeGreaterThan(0);
      for (const r of section.rows) expect(Object.keys(r).sort()).toEqual(['env_value', 'secret', 'source', 'value', 'variable']);
    }
  });

  it('every variable the server reads appears exactly once', () => {
    const listed = rows().map((r) => r.variable).sort();
    expect(listed).toEqual(Object.keys(envSchema.shape).sort());
  });

  it('variables are grouped by what they are about', () => {
    expect(sectionOf('SLUICE_PORT')).toBe('server');
    expect(sectionOf('SLUICE_QUERY_TIMEOUT')).toBe('queries');
    expect(sectionOf('SLUICE_POOL_SIZE')).toBe('pool');
    expect(sectionOf('SLUICE_REDIS_URL')).toBe('cache');
    expect(sectionOf('SLUICE_JSON_LOGS')).toBe('observability');
    expect(sectionOf('SLUICE_METRICS_TOKEN')).toBe('observability');
    expect(sectionOf('SLUICE_API_KEY')).toBe('security');
  });
});

describe('values', () => {
  it('a variable set in the environment: its value in effect, source env, the text it was set with', () => {
    expect(row('SLUICE_QUERY_TIMEOUT')).toEqual({ variable: 'SLUICE_QUERY_TIMEOUT', value: '45', source: 'env', env_value: '45', secret: false });
    // The value in effect is the parsed one; env_value the text as set.
    expect(row('SLUICE_ALLOW_WRITES')).toMatchObject({ value: 'true', source: 'env', env_value: 'yes' });
  });

  it('a variable left unset: its default, source default, env_value null', () => {
    expect(row('SLUICE_MAX_PAGE_SIZE')).toEqual({ variable: 'SLUICE_MAX_PAGE_SIZE', value: '1000', source: 'default', env_value: null, secret: false });
    expect(row('SLUICE_STREAM_MAX_ROWS')).toMatchObject({ value: null, source: 'default', env_value: null });
    // Names of variables, no secret: shown, with the security settings.
    expect(row('SLUICE_SECRET_REFS')).toEqual({ variable: 'SLUICE_SECRET_REFS', value: 'SLUICE_REF_*', source: 'default', env_value: null, secret: false });
    expect(sectionOf('SLUICE_SECRET_REFS')).toBe('security');
  });

  it('a secret says only whether it is configured; its env_value is null', () => {
    expect(row('SLUICE_API_KEY')).toEqual({ variable: 'SLUICE_API_KEY', value: 'configured', source: 'env', env_value: null, secret: true });
    expect(row('SLUICE_DATABASE_URL')).toEqual({ variable: 'SLUICE_DATABASE_URL', value: 'not configured', source: 'default', env_value: null, secret: true });
    expect(row('SLUICE_METRICS_TOKEN')).toMatchObject({ value: 'not configured', env_value: null, secret: true });
    expect(JSON.stringify(settings)).not.toContain(o.adminKey);
  });
});

describe('access', () => {
  it('an administrator with settings.read reads it; anonymous callers get 401', async () => {
    const name = unique('auditor');
    expect((await o.api('POST', '/api/v1/administrators', { name, role: 'auditor' })).status).toBe(201);
    const token = await o.api('POST', `/api/v1/administrators/${name}/tokens`, {});
    expect(token.status, JSON.stringify(token.body)).toBe(201);
    const read = await o.origin.call('GET', '/api/v1/settings', undefined, { Authorization: `Bearer ${token.body.secret}` });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(settings);
    expect((await o.origin.call('GET', '/api/v1/settings')).status).toBe(401);
  });

  it('it is read-only', async () => {
    expect((await o.api('PATCH', '/api/v1/settings', { SLUICE_PORT: '1' })).status).toBeGreaterThanOrEqual(400);
  });
});

describe('/metrics without SLUICE_METRICS_TOKEN', () => {
  it('is public even though the server needs a key', async () => {
    const res = await o.origin.fetch('/metrics');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('sluice_requests_total');
  });
});

describe('secrets', () => {
  it('no log line carries the admin key or the connection password', () => {
    expectNoSecrets(o.origin, [o.adminKey, o.password]);
  });
});
