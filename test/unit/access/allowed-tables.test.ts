import { describe, expect, it } from 'vitest';
import { assertTablesAllowed, disallowedTables, nameParts } from '../../../origin/access/allowed-tables.ts';
import type { Dialect } from '../../../origin/drivers/types.ts';
import { SluiceError } from '../../../origin/errors.ts';

/** A key's allowed_tables against the tables a statement names: exact names, schema.*, no case, fail closed. */

const refusal = (sql: string, allowed: string[], dialect: Dialect = 'postgres') => {
  try {
    assertTablesAllowed(sql, dialect, allowed);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(SluiceError);
    expect((err as SluiceError).status).toBe(403);
    return (err as SluiceError).message;
  }
};

describe('nameParts', () => {
  it('splits on dots outside double quotes and lower-cases', () => {
    expect(nameParts('Public.Films')).toEqual(['public', 'films']);
    expect(nameParts('films')).toEqual(['films']);
    expect(nameParts('"a.b".c')).toEqual(['a.b', 'c']);
    expect(nameParts('"say ""hi""".t')).toEqual(['say "hi"', 't']);
    expect(nameParts('s.*')).toEqual(['s', '*']);
  });
});

describe('disallowedTables', () => {
  it('matches table, schema.table and schema.* without case', () => {
    expect(disallowedTables(['films'], ['FILMS'])).toEqual([]);
    expect(disallowedTables(['public.films'], ['films'])).toEqual(['public.films']);
    expect(disallowedTables(['films'], ['public.films'])).toEqual(['films']);
    expect(disallowedTables(['public.films', 'public.people'], ['public.*'])).toEqual([]);
    expect(disallowedTables(['films', 'other.films'], ['public.*'])).toEqual(['films', 'other.films']);
    expect(disallowedTables(['Foo.Bar'], ['foo.bar'])).toEqual([]);
    expect(disallowedTables(['db.s.t'], ['s.*'])).toEqual(['db.s.t']);
  });

  it('never allows table functions or file scans', () => {
    expect(disallowedTables(['function:generate_series', 'file:f.csv'], ['*', 'function:generate_series'])).toEqual(['function:generate_series', 'file:f.csv']);
  });

  it('does not treat a lone * as every table', () => {
    expect(disallowedTables(['films'], ['*'])).toEqual(['films']);
  });
});

describe('assertTablesAllowed', () => {
  it('lets a read through when every table it names is allowed, joins and subqueries included', () => {
    expect(refusal('select * from films f join people p on p.id = f.director where p.id in (select id from people)', ['films', 'people'])).toBeNull();
    expect(refusal('with recent as (select * from films) select * from recent', ['films'])).toBeNull();
    expect(refusal('select 1', ['films'])).toBeNull();
  });

  it('refuses naming every table not allowed, and the allowed ones', () => {
    const message = refusal('select * from films join secrets on true', ['films']);
    expect(message).toContain('table secrets');
    expect(message).toContain('allowed_tables: films');
    expect(refusal('select * from films where id in (select film from hidden.rentals)', ['films'])).toContain('table hidden.rentals');
  });

  it('checks the target and the sources of a write', () => {
    expect(refusal('insert into films (title) select title from staging', ['films', 'staging'])).toBeNull();
    expect(refusal('insert into films (title) select title from staging', ['films'])).toContain('table staging');
    expect(refusal('update films set title = (select max(name) from secrets)', ['films'])).toContain('table secrets');
    expect(refusal('delete from secrets where id = 1', ['films'])).toContain('table secrets');
    expect(refusal('with gone as (delete from films returning *) insert into archive select * from gone', ['films', 'archive'])).toBeNull();
    expect(refusal('replace into Films values (1)', ['films'], 'mysql')).toBeNull();
  });

  it('fails closed when the tables cannot be determined', () => {
    const closed = /cannot be determined/;
    expect(refusal('create table x as select * from films', ['films', 'x'])).toMatch(closed);
    expect(refusal('truncate films', ['films'])).toMatch(closed);
    expect(refusal('explain select * from films', ['films'])).toMatch(closed);
    expect(refusal("select * from query('select * from secrets')", ['films'], 'duckdb')).toMatch(closed);
    expect(refusal('select * from {table}', ['films'])).toMatch(closed);
    expect(refusal('select * from (films', ['films'])).toMatch(closed);
    expect(refusal('select 1; select 2', ['films'])).toMatch(closed);
  });

  it('refuses table functions and files, which read what no table name shows', () => {
    expect(refusal("select * from read_csv('/etc/passwd')", ['films'], 'duckdb')).toContain('table function read_csv(...)');
    expect(refusal("select * from 'data.parquet'", ['films'], 'duckdb')).toContain('file data.parquet');
  });
});
