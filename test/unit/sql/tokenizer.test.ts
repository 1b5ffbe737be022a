import { describe, expect, test } from 'vitest';
import type { Dialect } from '../../../origin/drivers/types.ts';
import { tokenize, type TokenKind } from '../../../origin/sql/tokenizer.ts';

const kinds = (sql: string, dialect: Dialect) => tokenize(sql, dialect).map((t) => [t.kind, t.text]);
const only = (sql: string, dialect: Dialect, kind: TokenKind) =>
  tokenize(sql, dialect).filter((t) => t.kind === kind).map((t) => t.text);

describe('strings', () => {
  test("single quotes with '' escapes, in every dialect", () => {
    for (const dialect of ['postgres', 'mysql', 'duckdb', 'sqlite'] as const) {
      expect(kinds("select 'it''s' x", dialect)).toEqual([
        ['word', 'select'],
        ['string', "'it''s'"],
        ['word', 'x'],
      ]);
    }
  });

  test('a backslash escapes only in MySQL strings', () => {
    expect(only("select 'a\\' , 'b'", 'mysql', 'string')).toEqual(["'a\\' , '", "'"]);
    expect(only("select 'a\\' , 'b'", 'postgres', 'string')).toEqual(["'a\\'", "'b'"]);
    expect(only("select 'a\\' , 'b'", 'sqlite', 'string')).toEqual(["'a\\'", "'b'"]);
  });

  test("E'..' strings take backslash escapes in postgres and duckdb", () => {
    expect(only("select E'\\'', 'x'", 'postgres', 'string')).toEqual(["E'\\''", "'x'"]);
    expect(only("select e'a\\\\' , 1", 'duckdb', 'string')).toEqual(["e'a\\\\'"]);
    // Elsewhere E is just a word before an ordinary string.
    expect(kinds("select E'\\'", 'sqlite')).toEqual([
      ['word', 'select'],
      ['word', 'E'],
      ['string', "'\\'"],
    ]);
  });

  test('a word ending in e is not an E string', () => {
    expect(kinds("select type'x'", 'postgres')).toEqual([
      ['word', 'select'],
      ['word', 'type'],
      ['string', "'x'"],
    ]);
  });

  test('MySQL double quotes are strings with backslash escapes', () => {
    expect(kinds('select "a\\"b""c"', 'mysql')).toEqual([
      ['word', 'select'],
      ['string', '"a\\"b""c"'],
    ]);
  });

  test('under ANSI_QUOTES or NO_BACKSLASH_ESCAPES MySQL quotes end at the next quote', () => {
    expect(only('select "a\\" x', 'mysql', 'string')).toEqual(['"a\\" x']);
    expect(only('select "a\\" x', 'mysql', 'quoted')).toEqual([]);
    expect(tokenize('select "a\\" x', 'mysql', 'ansi_quotes').map((t) => t.kind)).toEqual(['word', 'quoted', 'word']);
    expect(only("select 'a\\' x", 'mysql', 'string')).toEqual(["'a\\' x"]);
    expect(tokenize("select 'a\\' x", 'mysql', 'no_backslash_escapes').map((t) => t.text)).toEqual([
      'select',
      "'a\\'",
      'x',
    ]);
  });

  test('an unterminated string runs to the end', () => {
    expect(kinds("select 'abc", 'postgres')).toEqual([
      ['word', 'select'],
      ['string', "'abc"],
    ]);
  });
});

describe('dollar quotes', () => {
  test('$$...$$ and $tag$...$tag$ in postgres and duckdb', () => {
    expect(only("select $$ it's ; $$, $fn$ a $$ b $fn$", 'postgres', 'string')).toEqual([
      "$$ it's ; $$",
      '$fn$ a $$ b $fn$',
    ]);
    expect(only('select $x$ ; $x$', 'duckdb', 'string')).toEqual(['$x$ ; $x$']);
  });

  test('$1 is a positional parameter, not a quote', () => {
    expect(kinds('select $1', 'postgres')).toEqual([
      ['word', 'select'],
      ['operator', '$'],
      ['number', '1'],
    ]);
  });

  test('a $ inside an identifier does not open a quote', () => {
    expect(kinds('select a$$b', 'postgres')).toEqual([
      ['word', 'select'],
      ['word', 'a$$b'],
    ]);
  });

  test('MySQL and SQLite have no dollar quotes', () => {
    expect(only('select $$ ; $$', 'mysql', 'string')).toEqual([]);
    expect(only('select $$ ; $$', 'sqlite', 'punct')).toEqual([';']);
  });
});

describe('quoted identifiers', () => {
  test('double quotes with "" escape outside MySQL', () => {
    expect(only('select "a""b" from t', 'postgres', 'quoted')).toEqual(['"a""b"']);
    expect(only('select "x" from t', 'sqlite', 'quoted')).toEqual(['"x"']);
  });

  test('backticks in MySQL and SQLite, brackets in SQLite', () => {
    expect(only('select `a``b` from t', 'mysql', 'quoted')).toEqual(['`a``b`']);
    expect(only('select `a`, [b c] from t', 'sqlite', 'quoted')).toEqual(['`a`', '[b c]']);
    // Brackets are array subscripts elsewhere.
    expect(only('select a[1] from t', 'postgres', 'punct')).toEqual(['[', ']']);
  });
});

describe('comments', () => {
  test('-- to end of line', () => {
    expect(kinds('select 1 -- x; y\n, 2', 'postgres')).toEqual([
      ['word', 'select'],
      ['number', '1'],
      ['comment', '-- x; y'],
      ['punct', ','],
      ['number', '2'],
    ]);
  });

  test('MySQL needs a space after --; 1--1 is arithmetic', () => {
    expect(only('select 1--1', 'mysql', 'comment')).toEqual([]);
    expect(only('select 1-- 1', 'mysql', 'comment')).toEqual(['-- 1']);
    expect(only('select 1--', 'mysql', 'comment')).toEqual(['--']);
    expect(only('select 1--1', 'postgres', 'comment')).toEqual(['--1']);
  });

  test('# comments only in MySQL', () => {
    expect(only('select 1 # x ; y', 'mysql', 'comment')).toEqual(['# x ; y']);
    expect(only('select 1 # x ; y', 'postgres', 'punct')).toEqual([';']);
  });

  test('block comments nest in postgres and duckdb only', () => {
    const sql = 'select /* a /* b */ c */ 1';
    expect(only(sql, 'postgres', 'comment')).toEqual(['/* a /* b */ c */']);
    expect(only(sql, 'duckdb', 'comment')).toEqual(['/* a /* b */ c */']);
    expect(only(sql, 'mysql', 'comment')).toEqual(['/* a /* b */']);
    expect(only(sql, 'sqlite', 'comment')).toEqual(['/* a /* b */']);
  });

  test('quotes inside comments and comment marks inside strings are inert', () => {
    expect(kinds("select '--' /* ' */ , 1", 'postgres').map(([kind]) => kind)).toEqual([
      'word',
      'string',
      'comment',
      'punct',
      'number',
    ]);
  });

  test('an unterminated block comment runs to the end', () => {
    expect(only('select 1 /* ; drop', 'sqlite', 'comment')).toEqual(['/* ; drop']);
  });
});

describe('markers, casts and numbers', () => {
  test(':: is a cast, not a marker', () => {
    expect(only('select x::int, :a::text', 'postgres', 'marker')).toEqual([':a']);
    expect(only('select x::int', 'postgres', 'operator')).toEqual(['::']);
  });

  test('a colon right after a word or digit is an array slice, not a marker', () => {
    expect(only('select a[1:n], a[lo:hi], a[:m]', 'postgres', 'marker')).toEqual([':m']);
  });

  test('markers are not found in strings, identifiers, comments or dollar quotes', () => {
    expect(only("select ':a', \":b\", $$:c$$ /* :d */ -- :e", 'postgres', 'marker')).toEqual([]);
    expect(only('select `:a`, [:b]', 'sqlite', 'marker')).toEqual([]);
  });

  test('marker names', () => {
    expect(only('select :a_1, :_b,:c2', 'mysql', 'marker')).toEqual([':a_1', ':_b', ':c2']);
    expect(only('set @x := 1', 'mysql', 'marker')).toEqual([]);
  });

  test('numbers', () => {
    expect(only('select 1, 2.5, .5, 1e10, 0x1F, 1_000', 'postgres', 'number')).toEqual([
      '1',
      '2.5',
      '.5',
      '1e10',
      '0x1F',
      '1_000',
    ]);
  });

  test('offsets point into the original text', () => {
    const sql = "  SELECT  'x' , :p";
    for (const token of tokenize(sql, 'postgres')) expect(sql.slice(token.start, token.end)).toBe(token.text);
  });

  test('words carry their upper-case form; other tokens do not', () => {
    expect(tokenize("Select 'a'", 'sqlite').map((t) => t.word)).toEqual(['SELECT', '']);
  });
});

describe('U& names and strings', () => {
  test('U&"..." with its UESCAPE clause is one quoted token in postgres, duckdb and jdbc', () => {
    for (const dialect of ['postgres', 'duckdb', 'jdbc'] as const) {
      expect(kinds(`select U&"a!0062" /* c */ UESCAPE '!' (1)`, dialect)).toEqual([
        ['word', 'select'],
        ['quoted', `U&"a!0062" /* c */ UESCAPE '!'`],
        ['punct', '('],
        ['number', '1'],
        ['punct', ')'],
      ]);
    }
    expect(kinds(`select u&'x' from t`, 'postgres')).toEqual([['word', 'select'], ['string', "u&'x'"], ['word', 'from'], ['word', 't']]);
  });

  test('elsewhere U& is a word and an operator', () => {
    expect(kinds('select U&"a"', 'sqlite').map(([kind]) => kind)).toEqual(['word', 'word', 'operator', 'quoted']);
  });

  test('a UESCAPE-looking word that is longer is no clause', () => {
    expect(only(`select U&"a" uescapex`, 'postgres', 'quoted')).toEqual(['U&"a"']);
  });
});
