import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { recordSecret } from '../harness/run-record.ts';
import { unique } from '../harness/unique.ts';

/**
 * A password written inside a JDBC URL (issue 33, item 11) would be stored
 * as written, never encrypted: the API, the connection test and
 * configuration files refuse it in every form, as a configuration file
 * refuses a mongodb URI's literal password, and `password` takes it instead.
 * A URL stored with one before (on a PostgreSQL store, written there by
 * hand) is masked in every response: GET, audit diffs, config plans and
 * export.
 */

const LEGACY = 'Legacy-url-S3cret-41';
const API = '/api/v1/connections';
const at = (name: string) => `${API}/${encodeURIComponent(name)}`;

let origin: Origin;
let store: FreshDatabase;
let sql: postgres.Sql;

const h2 = (jdbc_url: string) => ({ db: 'h2', options: { jdbc_url } });
const jdbc = (jdbc_url: string) => ({ db: 'jdbc', options: { jdbc_url, driver_class: 'org.postgresql.Driver', driver_jar: '/usr/share/java/postgresql.jar' } });

/** Every form a JDBC URL carries a password in. */
const WITH_PASSWORD = [
  h2('jdbc:h2:mem:x;USER=sa;PASSWORD=hunter22'),
  h2('jdbc:h2:mem:x;user=sa;password=hunter22;DB_CLOSE_DELAY=-1'),
  jdbc('jdbc:postgresql://127.0.0.1:5432/test?user=u&password=hunter22'),
  jdbc('jdbc:postgresql://127.0.0.1:5432/test?password=hunter22&user=u'),
  jdbc('jdbc:mysql://u:hunter22@127.0.0.1:3306/test'),
  jdbc('jdbc:sqlserver://127.0.0.1;user=sa;Pwd=hunter22'),
  jdbc('jdbc:oracle:thin:scott/hunter22@127.0.0.1:1521:orcl'),
];

beforeAll(async () => {
  recordSecret('legacy URL password', LEGACY);
  store = await freshDatabase();
  sql = postgres(store.url, { max: 1, onnotice: () => {} });
  origin = await startOrigin({ edge: false, env: { SLUICE_DATABASE_URL: store.url } });
});

afterAll(async () => {
  await origin?.stop();
  await sql?.end({ timeout: 5 });
  await store?.drop();
});

describe('a password inside jdbc_url', () => {
  it('is refused on create, PATCH and test, in every form, naming where it goes instead', async () => {
    for (const fields of WITH_PASSWORD) {
      const label = fields.options.jdbc_url;
      const created = await origin.call('POST', API, { name: unique('u'), ...fields });
      expect(created.status, `${label}: ${JSON.stringify(created.body)}`).toBe(400);
      expect(created.body.code).toBe('invalid_request');
      expect(created.body.errors).toEqual({ 'options.jdbc_url': expect.stringMatching(/holds a password.*send it as password/) });
      expect(JSON.stringify(created.body), label).not.toContain('hunter22');
      const tested = await origin.call('POST', `${API}/test`, fields);
      expect(tested.status, `${label}: ${JSON.stringify(tested.body)}`).toBe(400);
    }
    const name = unique('clean');
    expect((await origin.call('POST', API, { name, ...h2('jdbc:h2:mem:clean;PASSWORD_HASH=FALSE'), user: 'sa', password: 'hunter22' })).status).toBe(201);
    const patched = await origin.call('PATCH', at(name), { options: { jdbc_url: 'jdbc:h2:mem:clean;PASSWORD=hunter22' } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(400);
    expect(patched.body.errors).toEqual({ 'options.jdbc_url': expect.any(String) });
  });

  it('is refused by a configuration file, at its place', async () => {
    const file = {
      format: 'sluice-config',
      format_version: 1,
      connections: [
        { name: unique('f'), ...h2('jdbc:h2:mem:f;PASSWORD=hunter22') },
        { name: unique('g'), ...jdbc('jdbc:mysql://127.0.0.1/test?password=${SLUICE_REF_PW}') },
        { name: unique('h'), ...h2('jdbc:h2:mem:h'), password: '${SLUICE_REF_PW}' },
      ],
    };
    const res = await origin.call('POST', '/api/v1/config/diff', file);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.errors).toEqual([
      { path: 'connections[0].options.jdbc_url', message: expect.stringMatching(/holds a password.*\$\{VAR\} reference/) },
      { path: 'connections[1].options.jdbc_url', message: expect.stringMatching(/holds a password/) },
    ]);
    expect(JSON.stringify(res.body)).not.toContain('hunter22');
  });

  it('stored before, is masked in GET, the audit diff of a change, and config export', async () => {
    const name = unique('legacy');
    expect((await origin.call('POST', API, { name, ...h2('jdbc:h2:mem:legacy') })).status).toBe(201);
    const url = `jdbc:h2:mem:legacy;USER=sa;PASSWORD=${LEGACY}`;
    await sql`update connections set options = ${sql.json({ jdbc_url: url })} where name = ${name}`;

    const read = await origin.call('GET', at(name));
    expect(read.body.options.jdbc_url).toBe('jdbc:h2:mem:legacy;USER=sa;PASSWORD=********');
    const exported = await origin.call('GET', '/api/v1/config/export?kinds=connections');
    expect(exported.status).toBe(200);
    expect(JSON.stringify(exported.body)).not.toContain(LEGACY);
    expect(exported.body.connections.find((c: { name: string }) => c.name === name).options.jdbc_url).toBe('jdbc:h2:mem:legacy;USER=sa;PASSWORD=********');

    // Another field changes: the stored URL stays as it is, and works as before.
    expect((await origin.call('PATCH', at(name), { active: false })).status).toBe(200);
    const moved = await origin.call('PATCH', at(name), { options: { jdbc_url: 'jdbc:h2:mem:moved' }, user: 'sa', password: LEGACY });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const audit = await origin.call('GET', `/api/v1/audit?action=update_connection&target=${encodeURIComponent(name)}`);
    expect(audit.body.items[0].changes.options).toEqual({ from: { jdbc_url: 'jdbc:h2:mem:legacy;USER=sa;PASSWORD=********' }, to: { jdbc_url: 'jdbc:h2:mem:moved' } });
    expect(JSON.stringify(audit.body)).not.toContain(LEGACY);
  });
});
