import { Decimal, Instant, JsonValue, LocalTimestamp, SqlDate, SqlTime, type Value, type ValueKind } from '../../values.ts';
import { integerFromText, jsonSafe, plainBytes } from '../json-values.ts';
import { dateText, instantMicrosFromText, localTimestampText, timeText } from '../temporal.ts';

/**
 * PostgreSQL values arrive as the server's text (postgres.js parsers are
 * switched off; the session runs with DateStyle ISO, TimeZone UTC, bytea hex)
 * and are converted here by type OID.
 */

export type Convert = (text: string) => Value;

export interface PgType {
  name: string;
  kind: ValueKind;
  convert: Convert;
}

/** What the catalog says of a type the table below does not know: domains, enums, arrays of anything. */
export interface PgCatalogType {
  name: string;
  /** `b` base, `d` domain, `e` enum, `c` composite, `r` range... */
  typtype: string;
  /** The base type of a domain, else 0. */
  base: number;
  /** The element type of an array, else 0. */
  elem: number;
  /** `A` for arrays. */
  category: string;
}

const text: Convert = (t) => t;
const float: Convert = (t) => Number(t);
const smallInt: Convert = (t) => Number(t);

const bytes: Convert = (t) => plainBytes(Buffer.from(t.slice(2), 'hex'));
const date: Convert = (t) => {
  const d = dateText(t);
  return d === null ? t : new SqlDate(d);
};
const timestamp: Convert = (t) => {
  const local = localTimestampText(t);
  return local === null ? t : new LocalTimestamp(local);
};
const timestamptz: Convert = (t) => {
  const micros = instantMicrosFromText(t);
  return micros === null ? t : new Instant(micros);
};
const time: Convert = (t) => new SqlTime(timeText(t));
const json: Convert = (t) => new JsonValue(JSON.parse(t));

const BUILTIN: Record<number, PgType> = {
  16: { name: 'bool', kind: 'boolean', convert: (t) => t === 't' },
  17: { name: 'bytea', kind: 'binary', convert: bytes },
  18: { name: 'char', kind: 'text', convert: text },
  19: { name: 'name', kind: 'text', convert: text },
  20: { name: 'int8', kind: 'integer', convert: integerFromText },
  21: { name: 'int2', kind: 'integer', convert: smallInt },
  23: { name: 'int4', kind: 'integer', convert: smallInt },
  25: { name: 'text', kind: 'text', convert: text },
  26: { name: 'oid', kind: 'integer', convert: smallInt },
  114: { name: 'json', kind: 'json', convert: json },
  142: { name: 'xml', kind: 'text', convert: text },
  700: { name: 'float4', kind: 'float', convert: float },
  701: { name: 'float8', kind: 'float', convert: float },
  1042: { name: 'bpchar', kind: 'text', convert: text },
  1043: { name: 'varchar', kind: 'text', convert: text },
  1082: { name: 'date', kind: 'date', convert: date },
  1083: { name: 'time', kind: 'time', convert: time },
  1114: { name: 'timestamp', kind: 'timestamp', convert: timestamp },
  1184: { name: 'timestamptz', kind: 'timestamptz', convert: timestamptz },
  1186: { name: 'interval', kind: 'text', convert: text },
  1266: { name: 'timetz', kind: 'time', convert: time },
  1700: { name: 'numeric', kind: 'decimal', convert: (t) => new Decimal(t) },
  2950: { name: 'uuid', kind: 'text', convert: text },
  3802: { name: 'jsonb', kind: 'json', convert: json },
};

/** Array OIDs of the built-in types, so arrays convert before the catalog is loaded. */
const BUILTIN_ARRAYS: Record<number, number> = {
  1000: 16, 1001: 17, 1002: 18, 1003: 19, 1016: 20, 1005: 21, 1007: 23, 1009: 25, 1028: 26, 199: 114,
  143: 142, 1021: 700, 1022: 701, 1014: 1042, 1015: 1043, 1182: 1082, 1183: 1083, 1115: 1114, 1185: 1184,
  1187: 1186, 1270: 1266, 1231: 1700, 2951: 2950, 3807: 3802,
};

/** The conversion for a column's type OID; `catalog` resolves domains, enums and other arrays. */
export function pgType(oid: number, catalog: ReadonlyMap<number, PgCatalogType>): PgType {
  const builtin = BUILTIN[oid];
  if (builtin) return builtin;
  const builtinElem = BUILTIN_ARRAYS[oid];
  if (builtinElem !== undefined) return arrayType(`${BUILTIN[builtinElem].name}[]`, BUILTIN[builtinElem]);
  const entry = catalog.get(oid);
  if (!entry) return { name: `oid:${oid}`, kind: 'unknown', convert: text };
  if (entry.typtype === 'd' && entry.base) return { ...pgType(entry.base, catalog), name: entry.name };
  if (entry.category === 'A' && entry.elem) return arrayType(entry.name, pgType(entry.elem, catalog));
  return { name: entry.name, kind: entry.typtype === 'e' ? 'text' : 'unknown', convert: text };
}

function arrayType(name: string, element: PgType): PgType {
  const convertElement = (t: string) => jsonSafe(element.convert(t));
  return {
    name,
    kind: 'json',
    convert: (t) => {
      try {
        return new JsonValue(parseArray(t, convertElement));
      } catch {
        return t;
      }
    },
  };
}

/**
 * Parses PostgreSQL's array text: `{1,NULL,"a \"b\""}`, nested `{{1,2},{3,4}}`,
 * with an optional `[0:1]=` bounds prefix (dropped).
 */
export function parseArray(input: string, convert: (text: string) => unknown): unknown[] {
  let i = input.startsWith('[') ? input.indexOf('=') + 1 : 0;
  const parseLevel = (): unknown[] => {
    if (input[i] !== '{') throw new Error('malformed array');
    i++;
    const out: unknown[] = [];
    if (input[i] === '}') {
      i++;
      return out;
    }
    for (;;) {
      const c = input[i];
      if (c === '{') out.push(parseLevel());
      else if (c === '"') {
        let value = '';
        i++;
        while (input[i] !== '"') {
          if (input[i] === '\\') i++;
          if (i >= input.length) throw new Error('malformed array');
          value += input[i++];
        }
        i++;
        out.push(convert(value));
      } else {
        const start = i;
        while (i < input.length && input[i] !== ',' && input[i] !== '}') i++;
        const raw = input.slice(start, i).trim();
        out.push(raw === 'NULL' ? null : convert(raw));
      }
      if (input[i] === ',') i++;
      else if (input[i] === '}') {
        i++;
        return out;
      } else throw new Error('malformed array');
    }
  };
  return parseLevel();
}

/** Loads the catalog's types (one query per driver, repeated when an unknown OID shows up). */
export const TYPE_CATALOG_SQL = `
select t.oid::int4 as oid,
       case when t.typcategory = 'A' and e.oid is not null then e.typname || '[]' else t.typname end as name,
       t.typtype::text as typtype, t.typbasetype::int4 as base, t.typelem::int4 as elem,
       t.typcategory::text as category
  from pg_type t left join pg_type e on e.oid = t.typelem
 where t.typtype <> 'p'`;
