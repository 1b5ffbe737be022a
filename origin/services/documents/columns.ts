import type { ColumnMeta, DocumentFields } from '../../drivers/types.ts';
import { bsonTypeName, kindOfBsonType } from '../../drivers/mongodb/values.ts';
import { jsonValue } from '../../formats/json-text.ts';
import type { Value } from '../../values.ts';

/**
 * Documents as rows: the columns are field names (the projection's, or those
 * seen, in order of first appearance) and each document becomes one row, a
 * field it lacks NULL. A column's type is the BSON type of its values when
 * they agree (`int|string` and kind `unknown` when they do not), so typed
 * formats (parquet, xlsx) get what the documents hold.
 */

/** Collects field names and their types over documents, in order of first appearance. */
export class FieldSet {
  private readonly types = new Map<string, Set<string>>();

  constructor(names: readonly string[] = []) {
    for (const name of names) this.types.set(name, new Set());
  }

  get size(): number {
    return this.types.size;
  }

  has(name: string): boolean {
    return this.types.has(name);
  }

  /** Adds the document's fields (and their types) to the set. */
  add(document: DocumentFields): void {
    for (const [name, value] of document) this.note(name, value);
  }

  /** Records the types of the fields already in the set; returns the names of the fields it does not hold. */
  observe(document: DocumentFields): string[] {
    const outside: string[] = [];
    for (const [name, value] of document) {
      if (this.types.has(name)) this.note(name, value);
      else outside.push(name);
    }
    return outside;
  }

  private note(name: string, value: Value): void {
    let seen = this.types.get(name);
    if (!seen) this.types.set(name, (seen = new Set()));
    if (value !== null) seen.add(bsonTypeName(value));
  }

  columns(): ColumnMeta[] {
    return [...this.types].map(([name, types]) => {
      const list = [...types];
      // Integers that are sometimes 64-bit are still integers; with doubles they are numbers of kind float.
      const numeric = list.every((t) => t === 'int' || t === 'long') ? 'long' : list.every((t) => t === 'int' || t === 'long' || t === 'double') ? 'double' : null;
      const single = list.length === 1 ? list[0] : list.length > 1 ? numeric : null;
      return { name, dbType: list.join('|') || 'null', kind: single ? kindOfBsonType(single) : 'unknown' };
    });
  }
}

/** Maps documents to rows in the columns' order; fields outside them are left out. */
export function rowMaker(columns: readonly ColumnMeta[]): (document: DocumentFields) => Value[] {
  const index = new Map(columns.map((c, i) => [c.name, i]));
  const width = columns.length;
  return (document) => {
    const row = new Array<Value>(width).fill(null);
    for (const [name, value] of document) {
      const at = index.get(name);
      if (at !== undefined) row[at] = value;
    }
    return row;
  };
}

/** One document as a JSON object line, its fields as stored (NDJSON streams write whole documents). */
export function documentJson(document: DocumentFields): string {
  let out = '{';
  for (let i = 0; i < document.length; i++) {
    const [name, value] = document[i];
    out += `${i === 0 ? '' : ','}${JSON.stringify(name)}:${jsonValue(value)}`;
  }
  return `${out}}`;
}
