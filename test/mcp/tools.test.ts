import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolName } from '../../origin/services/mcp/names.ts';
import { freePort } from '../harness/edge.ts';
import { ADMIN_KEY, type GrantsEnv, admin, as, makeKey, saveQuery, startGrantsOrigin } from '../grants/fixture.ts';
import { recordedOf, waitForRun } from '../q/fixture.ts';
import { type McpClient, connectMcp, textOf } from './client.ts';
import { unique } from '../harness/unique.ts';

/**
 * The MCP endpoint driven by the SDK's own client over Streamable HTTP,
 * against a real origin: each caller's tools are exactly the queries it
 * reaches (plus the SQL tools when it holds a `connections` grant), a call
 * runs on the `/q` run path (rules, history with `transport: mcp`, the
 * key's rate limit, revocation at once), and `execute_sql` never writes
 * and keeps to `allowed_tables`.
 */

let env: GrantsEnv;
let mcpPort: number;
const clients: McpClient[] = [];
const tag = unique('m').replace(/-/g, '_');
const COLLECTION = `mcp-${tag}`.replace(/_/g, '-');
const FILMS = `mf_${tag}`;
const TYPED = `mt_${tag}`;
const SPACED = `m spaced ${tag}`;
const CLAIMED = `mc_${tag}`;
const WRITER = `mw_${tag}`;
const DRAFT = `md_${tag}`;
const OURS = [FILMS, TYPED, SPACED, CLAIMED, WRITER, DRAFT].map(toolName);
const BUILTINS = ['list_connections', 'list_tables', 'execute_sql'];
const ADMIN = { 'X-API-Key': ADMIN_KEY };

const mcpUrl = () => `${env.origin.url}/mcp`;
async function connect(headers: Record<string, string>, url = mcpUrl()): Promise<McpClient> {
  const client = await connectMcp(url, headers);
  clients.push(client);
  return client;
}
const key = (secret: string) => ({ 'X-API-Key': secret });
/** Tool names among ours and the built-ins, sorted. */
const namesOf = (tools: Array<{ name: string }>) => tools.map((tool) => tool.name).filter((name) => OURS.includes(name) || BUILTINS.includes(name)).sort();

beforeAll(async () => {
  mcpPort = await freePort();
  env = await startGrantsOrigin({ SLUICE_ALLOW_WRITES: '1', SLUICE_MCP_MAX_ROWS: '2', SLUICE_MCP_PORT: String(mcpPort) });
  const pg = { connection_name: env.pg };
  await saveQuery(env.origin, FILMS, { ...pg, sql: 'select id, title from films order by id', collection: COLLECTION, description: 'Every film' });
  await saveQuery(env.origin, TYPED, {
    ...pg,
    sql: "select id, title from films where id = :id and (cast(:title as text) is null or title = :title) and :mode in ('a', 'b')",
    parameters: {
      id: { type: 'integer', min: 1, max: 3, description: 'Film id' },
      title: { type: 'string', min_length: 1, max_length: 20, pattern: '[A-Z][a-z]+', required: false },
      mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
    },
  });
  await saveQuery(env.origin, SPACED, { ...pg, sql: 'select 1 as one' });
  await saveQuery(env.origin, CLAIMED, { ...pg, sql: 'select id from films where title = :who or id = :id', parameters: { who: { from_claim: 'email' }, id: 'int' } });
  await saveQuery(env.origin, WRITER, { ...pg, sql: "insert into notes (note) values ('from a tool') returning id" });
  await saveQuery(env.origin, DRAFT, { ...pg, sql: 'select 1 as one', publish: false });
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  await env?.stop();
});

describe('the tools of each caller', () => {
  it('are exactly the published queries it reaches, and the SQL tools only with a connections grant', async () => {
    const byQueries = await makeKey(env.origin, { queries: [TYPED, { name: WRITER, allow_writes: true }] });
    const byCollection = await makeKey(env.origin, { collections: [COLLECTION] });
    expect(namesOf(await (await connect(ADMIN)).tools())).toEqual([...[FILMS, TYPED, SPACED, CLAIMED, WRITER].map(toolName), ...BUILTINS].sort());
    expect(namesOf(await (await connect(key(byQueries.secret))).tools())).toEqual([TYPED, WRITER].sort());
    expect(namesOf(await (await connect(key(byCollection.secret))).tools())).toEqual([FILMS]);
  });

  it('answers a call of an SQL tool the caller does not list as an unknown tool (-32602), as for any tool it does not reach', async () => {
    const { secret } = await makeKey(env.origin, { queries: [TYPED] });
    const client = await connect(key(secret));
    await expect(client.call('execute_sql', { sql: 'select 1 as one', connection_name: env.pg })).rejects.toMatchObject({ code: -32602 });
    await expect(client.call('list_tables', { connection_name: env.pg })).rejects.toMatchObject({ code: -32602 });
    await expect(client.call('list_connections', {})).rejects.toMatchObject({ code: -32602 });
  });

  it('carry the parameter rules as the input schema, never from_claim ones; names MCP cannot carry are mapped', async () => {
    const { secret } = await makeKey(env.origin, { queries: [TYPED, CLAIMED, SPACED, FILMS, { name: WRITER, allow_writes: true }] });
    const tools = await (await connect(key(secret))).tools();
    const find = (query: string) => tools.find((tool) => tool.name === toolName(query))!;
    expect(toolName(SPACED)).toMatch(new RegExp(`^m_spaced_${tag}_[0-9a-f]{8}$`));
    expect(find(SPACED).annotations?.title).toBe(SPACED);
    const typed = find(TYPED).inputSchema as any;
    expect(typed.properties.id).toEqual({ type: 'integer', minimum: 1, maximum: 3, description: 'Film id' });
    expect(typed.properties.title).toMatchObject({ type: 'string', minLength: 1, maxLength: 20 });
    expect(new RegExp(typed.properties.title.pattern).test('Beta')).toBe(true);
    expect(new RegExp(typed.properties.title.pattern).test('beta')).toBe(false);
    expect(typed.properties.mode).toEqual({ type: 'string', enum: ['a', 'b'], default: 'a' });
    expect(typed.required).toEqual(['id']);
    expect(Object.keys((find(CLAIMED).inputSchema as any).properties)).toEqual(['id', 'dry_run', 'format']);
    expect(typed.properties.dry_run).toMatchObject({ type: 'boolean' });
    expect(find(FILMS).description).toContain('Every film');
    expect(find(FILMS).annotations?.readOnlyHint).toBe(true);
    expect(find(WRITER).annotations?.readOnlyHint).toBe(false);
  });
});

describe('calling a saved query', () => {
  it('answers its rows and records the run with transport mcp', async () => {
    const made = await makeKey(env.origin, { queries: [TYPED] });
    const client = await connect(key(made.secret));
    const result = await client.call(TYPED, { id: 2 });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ rows: [{ id: 2, title: 'Beta' }], row_count: 1, truncated: false });
    expect(textOf(result)).toContain('1 row');
    const run = await waitForRun(env.origin, client.requestIds.at(-1)!, ADMIN);
    expect(run).toMatchObject({ query: TYPED, transport: 'mcp', status: 'success', rows: 1, key_name: made.name, connection: env.pg });
  });

  it('finds a mapped tool name without a listing first; a query the key does not reach is an unknown tool', async () => {
    const fresh = await connect(ADMIN);
    expect((await fresh.call(toolName(SPACED))).structuredContent).toMatchObject({ rows: [{ one: 1 }] });
    const { secret } = await makeKey(env.origin, { queries: [TYPED] });
    await expect((await connect(key(secret))).call(FILMS)).rejects.toMatchObject({ code: -32602 });
  });

  it('refuses arguments that break the rules with every problem, before the database, unrecorded', async () => {
    const { secret } = await makeKey(env.origin, { queries: [TYPED] });
    const client = await connect(key(secret));
    const result = await client.call(TYPED, { id: 9, title: 'x', mode: 'z' });
    expect(result.isError).toBe(true);
    const errors = (result.structuredContent as { errors: Record<string, string> }).errors;
    expect(Object.keys(errors).sort()).toEqual(['id', 'mode', 'title']);
    for (const name of ['id', 'mode', 'title']) expect(textOf(result)).toContain(`- ${name}: `);
    expect(await recordedOf(env.origin, [client.requestIds.at(-1)!], ADMIN)).toEqual([]);
  });

  it('cuts the rows at SLUICE_MCP_MAX_ROWS, saying how many it left out, how to stream them all from /q, and linking the whole answer stored', async () => {
    const { secret } = await makeKey(env.origin, { collections: [COLLECTION] });
    const result = await (await connect(key(secret))).call(FILMS);
    const content = result.structuredContent as { rows: unknown[]; truncated: boolean; rows_left_out: number; fetch_all: string };
    expect(content.rows).toEqual([{ id: 1, title: 'Alpha' }, { id: 2, title: 'Beta' }]);
    expect(content.truncated).toBe(true);
    expect(content.rows_left_out).toBe(1);
    expect(textOf(result)).toContain('Only the first 2 rows are returned (the limit here is 2); 1 more row was left out.');
    const url = new URL(/https?:\/\/\S+/.exec(content.fetch_all)![0]);
    expect(url.pathname).toBe(`/q/${FILMS}`);
    expect(url.searchParams.get('stream')).toBe('true');
    const all = await as(env.origin, secret).fetch(url.pathname + url.search);
    expect(all.status).toBe(200);
    expect((await all.text()).trim().split('\n')).toHaveLength(3);
    // The whole answer as a stored result: a link that needs no key, for a tool that downloads.
    const stored = (result.structuredContent as { result: { id: string; url: string; format: string } }).result;
    expect(stored.format).toBe('ndjson');
    const link = result.content.find((item) => item.type === 'resource_link');
    expect(link).toMatchObject({ type: 'resource_link', uri: stored.url, mimeType: 'application/x-ndjson' });
    const rows = await fetch(stored.url);
    expect(rows.status).toBe(200);
    expect((await rows.text()).trim().split('\n').map((line) => JSON.parse(line))).toEqual([
      { id: 1, title: 'Alpha' },
      { id: 2, title: 'Beta' },
      { id: 3, title: 'Gamma' },
    ]);
  });

  it('answers a cached query from the response cache, unrecorded, as /q does', async () => {
    const cached = `mk_${tag}`;
    await saveQuery(env.origin, cached, { connection_name: env.pg, sql: 'select count(*)::int as n from films', cache_ttl: 60 });
    const client = await connect(ADMIN);
    const first = await client.call(cached);
    const firstId = client.requestIds.at(-1)!;
    const second = await client.call(cached);
    expect(second.structuredContent).toEqual(first.structuredContent);
    expect(second.structuredContent).toMatchObject({ rows: [{ n: 3 }] });
    expect(await recordedOf(env.origin, [firstId, client.requestIds.at(-1)!], ADMIN)).toEqual([firstId]);
  });

  it('refuses calls past the key’s rate limit', async () => {
    const { secret } = await makeKey(env.origin, { queries: [TYPED], rate_limit: '6/minute' });
    const client = await connect(key(secret));
    let refused: (Error & { code?: number }) | null = null;
    for (let i = 0; i < 6 && !refused; i++) {
      refused = await client.call(TYPED, { id: 1 }).then(
        () => null,
        (err: Error) => err,
      );
    }
    expect(refused?.code).toBe(429);
    expect(refused?.message).toContain('Rate limit exceeded for this API key');
  });

  it('refuses a revoked key at once', async () => {
    const made = await makeKey(env.origin, { queries: [TYPED] });
    const client = await connect(key(made.secret));
    expect((await client.call(TYPED, { id: 1 })).isError).toBeFalsy();
    expect((await admin(env.origin, 'PATCH', `/api/v1/api-keys/${made.name}`, { active: false })).status).toBe(200);
    await expect(client.call(TYPED, { id: 1 })).rejects.toMatchObject({ code: 401 });
  });

  it('refuses a session without a key, and a session id presented by another caller', async () => {
    await expect(connectMcp(mcpUrl(), {})).rejects.toMatchObject({ code: 401 });
    const owner = await connect(ADMIN);
    const { secret } = await makeKey(env.origin, { queries: [TYPED] });
    const stolen = await env.origin.fetch('/mcp', {
      method: 'POST',
      headers: { ...key(secret), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': (owner.client.transport as any).sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(stolen.status).toBe(404);
  });
});

describe('a dry run', () => {
  it('of a saved query or execute_sql checks what the run checks, runs nothing and answers the estimate and the budget it would break', async () => {
    const { secret } = await makeKey(env.origin, { queries: [TYPED], connections: [env.pg], budget: { max_estimated_rows: 1 } });
    const client = await connect(key(secret));
    const before = (await admin(env.origin, 'GET', '/api/v1/history?limit=1')).body.items[0]?.id ?? null;
    const saved = await client.call(TYPED, { id: 2, dry_run: true });
    expect(saved.isError, textOf(saved)).toBeFalsy();
    expect(saved.structuredContent).toMatchObject({ dry_run: true, dialect: 'postgres', statement_type: 'SELECT', parameters: { id: 2, mode: 'a' }, estimate: { source: 'planner' }, would_refuse: null });
    expect(textOf(saved)).toMatch(/^Dry run on .*: nothing ran; the planner estimates 1 rows/);
    const scan = await client.call('execute_sql', { sql: 'select * from films a, films b', connection_name: env.pg, dry_run: true });
    expect(scan.structuredContent).toMatchObject({ would_refuse: { code: 'estimate_too_large' } });
    expect(textOf(scan)).toContain('The run would be refused');
    const refused = await client.call('execute_sql', { sql: 'select * from films a, films b', connection_name: env.pg });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('max_estimated_rows');
    // A refusal is the run's own: a write, a bad parameter.
    expect((await client.call('execute_sql', { sql: "insert into notes (note) values ('no')", connection_name: env.pg, dry_run: true })).isError).toBe(true);
    expect((await client.call(TYPED, { id: 9, dry_run: true })).isError).toBe(true);
    expect((await client.call(TYPED, { id: 2, dry_run: 'yes' })).isError).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await admin(env.origin, 'GET', '/api/v1/history?limit=1')).body.items[0]?.id ?? null).toBe(before);
  });
});

describe('execute_sql, list_connections and list_tables', () => {
  it('run read-only on granted connections only, within allowed_tables and the row limit', async () => {
    const { secret } = await makeKey(env.origin, { connections: [env.pg], allow_writes: true, allowed_tables: ['films', 'notes'] });
    const client = await connect(key(secret));
    const read = await client.call('execute_sql', { sql: 'select id from films order by id', connection_name: env.pg });
    expect(read.structuredContent).toMatchObject({ rows: [{ id: 1 }, { id: 2 }], truncated: true, rows_left_out: 1 });
    const write = await client.call('execute_sql', { sql: "insert into notes (note) values ('no')", connection_name: env.pg });
    expect(write.isError).toBe(true);
    expect(await env.db.query('select count(*)::int as n from notes')).toEqual([{ n: 0 }]);
    const outside = await client.call('execute_sql', { sql: 'select * from secrets', connection_name: env.pg });
    expect(outside.isError).toBe(true);
    expect(textOf(outside)).toContain('secrets');
    const ungranted = await client.call('execute_sql', { sql: 'select 1 as one', connection_name: 'examples' });
    expect(ungranted.isError).toBe(true);
    const bad = await client.call('execute_sql', { connection_name: env.pg, extra: 1 });
    expect(Object.keys((bad.structuredContent as any).errors).sort()).toEqual(['extra', 'sql']);
  });

  // Issue 33 item 2: escaped names and SQL that runs SQL passed through MCP too; TABLE t is a read under allowed_tables.
  it('refuse escaped names and SQL that runs SQL; read TABLE t within allowed_tables', async () => {
    const { secret } = await makeKey(env.origin, { connections: [env.pg], allowed_tables: ['films'] });
    const client = await connect(key(secret));
    for (const [sql, named] of [
      [`select U&"pg\\005fread\\005ffile"('/etc/hostname')`, 'PG_READ_FILE()'],
      ["select query_to_xml('select pg_read_file(''/etc/hostname'')', true, false, '')", 'QUERY_TO_XML()'],
      [`select U&"pg\\00zfread"('/etc/hostname')`, 'cannot be read'],
    ]) {
      const refused = await client.call('execute_sql', { sql, connection_name: env.pg });
      expect(refused.isError, sql).toBe(true);
      expect(textOf(refused), sql).toContain(named);
    }
    const table = await client.call('execute_sql', { sql: 'TABLE films', connection_name: env.pg });
    expect(table.isError, textOf(table)).toBeFalsy();
    expect((table.structuredContent as any).rows.length).toBeGreaterThan(0);
    const hidden = await client.call('execute_sql', { sql: 'TABLE secrets', connection_name: env.pg });
    expect(hidden.isError).toBe(true);
    expect(textOf(hidden)).toContain('secrets');
  });

  it('count the rows they leave out up to 100,000, then say "more than"', async () => {
    const { secret } = await makeKey(env.origin, { connections: [env.pg] });
    const client = await connect(key(secret));
    const count = async (n: number) => {
      const result = await client.call('execute_sql', { sql: `select i from generate_series(1, ${n}) as s(i)`, connection_name: env.pg });
      return [(result.structuredContent as { rows_left_out: unknown }).rows_left_out, textOf(result)] as const;
    };
    const [exact, exactText] = await count(100_002);
    expect(exact).toBe(100_000);
    expect(exactText).toContain('; 100000 more rows were left out.');
    const [bound, boundText] = await count(100_003);
    expect(bound).toBe('more than 100000');
    expect(boundText).toContain('; more than 100000 rows after them were left out.');
  });

  it('list the granted connections and their tables, with their descriptions', async () => {
    const { secret } = await makeKey(env.origin, { connections: [env.pg] });
    const client = await connect(key(secret));
    const listed = await client.call('list_connections');
    expect(listed.structuredContent).toEqual({ connections: [{ name: env.pg, type: 'postgres', active: true }] });
    type Listing = { tables: Array<{ name: string; description: string | null; columns: Array<{ name: string; description: string | null }> }>; notes: string | null };
    const tables = (await client.call('list_tables', { connection_name: env.pg })).structuredContent as Listing;
    // Schema-qualified on PostgreSQL: the test database is a schema of its own.
    const bare = tables.tables.map((table) => table.name.split('.').at(-1));
    expect(bare).toEqual(expect.arrayContaining(['films', 'notes', 'secrets']));
    const films = tables.tables.find((table) => table.name.split('.').at(-1) === 'films')!;
    expect(films.description).toBeNull();
    const described = await admin(env.origin, 'PATCH', `/api/v1/connections/${env.pg}/descriptions`, {
      notes: 'The catalogue of the rental shop',
      items: [{ table: films.name, column: null, description: 'One row per film' }, { table: films.name, column: 'title', description: 'As printed on the box' }],
    });
    expect(described.status).toBe(200);
    const after = (await client.call('list_tables', { connection_name: env.pg })).structuredContent as Listing;
    const filmsAfter = after.tables.find((table) => table.name === films.name)!;
    expect(after.notes).toBe('The catalogue of the rental shop');
    expect(filmsAfter.description).toBe('One row per film');
    expect(filmsAfter.columns.find((column) => column.name === 'title')!.description).toBe('As printed on the box');
    expect((await client.call('list_tables', { connection_name: 'examples' })).isError).toBe(true);
  });
});

describe('notifications/tools/list_changed', () => {
  it('is sent when a query is published and when a key’s grants change', async () => {
    const made = await makeKey(env.origin, { queries: [TYPED] });
    const client = await connect(key(made.secret));
    expect(namesOf(await client.tools())).toEqual([TYPED]);
    let changed = client.nextListChanged();
    await saveQuery(env.origin, `mn_${tag}`, { connection_name: env.pg, sql: 'select 2 as two' });
    await changed;
    changed = client.nextListChanged();
    expect((await admin(env.origin, 'PATCH', `/api/v1/api-keys/${made.name}`, { queries: [TYPED, FILMS] })).status).toBe(200);
    await changed;
    expect(namesOf(await client.tools())).toEqual([FILMS, TYPED].sort());
  });
});

describe('SLUICE_MCP_PORT and /api/v1/mcp', () => {
  it('serves /mcp alone on its port, which the status reaches', async () => {
    const client = await connect(ADMIN, `http://127.0.0.1:${mcpPort}/mcp`);
    expect(namesOf(await client.tools())).toContain(FILMS);
    expect((await fetch(`http://127.0.0.1:${mcpPort}/catalog`, { headers: ADMIN })).status).toBe(404);
    const status = await admin(env.origin, 'GET', '/api/v1/mcp/status');
    expect(status.body).toEqual({ reachable: true, port: mcpPort });
  });

  it('lists the caller’s tools with kind, params and read_only; scoped keys are refused', async () => {
    const res = await admin(env.origin, 'GET', '/api/v1/mcp/tools');
    expect(res.status).toBe(200);
    const tools: any[] = res.body.tools;
    expect(tools.find((tool) => tool.name === TYPED)).toMatchObject({
      kind: 'saved_query',
      query: TYPED,
      read_only: true,
    });
    const params = Object.fromEntries(tools.find((tool) => tool.name === TYPED).params.map((param: any) => [param.name, param]));
    expect(params).toMatchObject({
      id: { required: true, schema: { type: 'integer', minimum: 1, maximum: 3 } },
      title: { required: false, schema: { type: 'string', maxLength: 20 } },
      mode: { required: false, schema: { enum: ['a', 'b'], default: 'a' } },
    });
    expect(tools.find((tool) => tool.name === 'execute_sql')).toMatchObject({ kind: 'ad_hoc', read_only: true });
    expect(tools.find((tool) => tool.name === toolName(WRITER))).toMatchObject({ read_only: false });
    const { secret } = await makeKey(env.origin, { queries: [TYPED] });
    expect((await as(env.origin, secret).get('/api/v1/mcp/tools')).status).toBe(403);
  });
});
