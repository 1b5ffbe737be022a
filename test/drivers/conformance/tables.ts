import { PROBE_TABLE } from '../../unit/sql/corpus.ts';
import type { Spellings } from '../fixtures/fixture.ts';
import { VALUES_TABLE, valuesTableSql } from './values.ts';

/**
 * Everything the conformance suite reads, created once per engine through the
 * engine's own client: the values table, the guard corpus's tables (reads use
 * `sluice_probe`; the writes it names aim at `t`, `s` and `u`), a table the
 * writes-on case writes, and a small catalog of tables and a view.
 */

/** Tables and views of the scratch database, as the catalog lists them. */
export const CATALOG = [
  { name: 'narrow', type: 'table' },
  { name: 's', type: 'table' },
  { name: PROBE_TABLE, type: 'table' },
  { name: 't', type: 'table' },
  { name: 'u', type: 'table' },
  { name: VALUES_TABLE, type: 'table' },
  { name: 'v', type: 'view' },
  { name: 'wide', type: 'table' },
  { name: 'written', type: 'table' },
].sort((a, b) => (a.name < b.name ? -1 : 1));

export function setupSql(spell: Spellings): string[] {
  return [
    ...valuesTableSql(spell),
    `CREATE TABLE ${PROBE_TABLE} (id integer, name text)`,
    `INSERT INTO ${PROBE_TABLE} VALUES (1, 'a'), (2, 'b'), (3, 'c')`,
    'CREATE TABLE t (a int)',
    'INSERT INTO t VALUES (1)',
    'CREATE TABLE s (id int)',
    'CREATE TABLE u (a int)',
    'CREATE TABLE written (a int)',
    'CREATE TABLE wide (a int NOT NULL, b text, c decimal(10,2))',
    'CREATE TABLE narrow (z int)',
    'CREATE VIEW v AS SELECT a FROM wide',
  ];
}
