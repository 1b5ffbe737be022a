import postgres from 'postgres';

/**
 * Every row of every table of a store on the test PostgreSQL server, as one
 * comparable value: what "the store is as before" means in the config tests.
 * Sequences are left out (a rolled-back insert still takes a number).
 */
export async function dumpStore(url: string): Promise<Record<string, unknown[]>> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const tables = await sql<{ name: string }[]>`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`;
    const dump: Record<string, unknown[]> = {};
    for (const { name } of tables) {
      // Table names come from the catalog and are plain identifiers.
      const rows = await sql.unsafe(`select to_jsonb(t)::text as row from "${name}" t`);
      dump[name] = rows.map((r) => r.row as string).sort();
    }
    return dump;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
