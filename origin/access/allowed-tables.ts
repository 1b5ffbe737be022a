import type { Engine } from '../sql/engine.ts';
import { SluiceError } from '../errors.ts';
import { tablesOrNull } from '../sql/tables.ts';

/**
 * A key's `allowed_tables` (format in shared/access/grants.ts): `table`,
 * `schema.table` or `schema.*`, compared without case against the tables a
 * statement names, as it names them. `films` allows `from films`, not
 * `from public.films` (list both when both are written); `public.*` allows
 * `public.films` and `public.people`, not a bare `films`. Table functions
 * (`read_csv(...)`, `generate_series(...)`) and file scans are never allowed:
 * they can read what no table name shows.
 */

/** The dot-separated parts of a name; a double-quoted part keeps its dots (`"a.b".c`), `""` is a quote. */
export function nameParts(name: string): string[] {
  const parts: string[] = [];
  let i = 0;
  while (i <= name.length) {
    let part = '';
    if (name[i] === '"') {
      i++;
      while (i < name.length) {
        if (name[i] === '"' && name[i + 1] === '"') {
          part += '"';
          i += 2;
        } else if (name[i] === '"') {
          i++;
          break;
        } else {
          part += name[i++];
        }
      }
      while (i < name.length && name[i] !== '.') part += name[i++];
    } else {
      while (i < name.length && name[i] !== '.') part += name[i++];
    }
    parts.push(part.toLowerCase());
    i++;
  }
  return parts;
}

/** Does one `allowed_tables` entry allow this table label? */
function allows(entry: string[], table: string[]): boolean {
  if (entry.length !== table.length) return false;
  return entry.every((part, i) => part === table[i] || (part === '*' && i === entry.length - 1 && i > 0));
}

const describe = (label: string) =>
  label.startsWith('function:') ? `table function ${label.slice(9)}(...)` : label.startsWith('file:') ? `file ${label.slice(5)}` : `table ${label}`;

/** The tables (as labels) of `tables` that `allowed` does not allow. */
export function disallowedTables(tables: string[], allowed: string[]): string[] {
  const entries = allowed.map(nameParts);
  return tables.filter((label) => {
    if (label.startsWith('function:') || label.startsWith('file:')) return true;
    const parts = nameParts(label);
    return !entries.some((entry) => allows(entry, parts));
  });
}

/**
 * Refuses (403) a statement that names a table `allowed` does not allow, and
 * fails closed when the tables cannot be determined: anything but one plain
 * SELECT, WITH, VALUES, INSERT, UPDATE, DELETE, MERGE or REPLACE over named
 * tables, dynamic SQL, legacy `{name}` placeholders.
 */
export function assertTablesAllowed(sql: string, engine: Engine, allowed: string[]): void {
  const tables = tablesOrNull(sql, engine, { writes: true });
  if (tables === null) {
    throw new SluiceError(
      'forbidden',
      'This API key may use only some tables (allowed_tables), and the tables this statement uses cannot be determined: ' +
        'only one plain SELECT, WITH, VALUES, TABLE, INSERT, UPDATE, DELETE, MERGE or REPLACE naming its tables can be checked',
    );
  }
  const refused = disallowedTables(tables, allowed);
  if (refused.length > 0) {
    throw new SluiceError(
      'forbidden',
      `This API key may not use ${refused.map(describe).join(', ')}; allowed_tables: ${allowed.join(', ')}`,
    );
  }
}
