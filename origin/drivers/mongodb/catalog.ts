import type { Db } from 'mongodb';
import { SluiceError } from '../../errors.ts';
import { type CatalogColumn, buildListing } from '../schema-listing.ts';
import type { SchemaListing } from '../types.ts';
import { bsonTypeName } from './values.ts';

/**
 * A document database's catalog: collections (and views) as tables, and as
 * columns the top-level fields of each collection's first documents, with
 * their BSON type names (`int|string` when the sampled documents disagree).
 * A field missing from some sampled document, or null in one, is nullable.
 */

/** Documents read per collection to learn its fields. */
export const SAMPLE_SIZE = 100;

interface FieldSeen {
  types: string[];
  present: number;
  nulls: boolean;
}

export async function listSchema(db: Db, maxColumns: number): Promise<SchemaListing> {
  const collections = (await db.listCollections({}, { nameOnly: false }).toArray())
    .filter((c) => !c.name.startsWith('system.'))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const rows: CatalogColumn[] = [];
  let columns = 0;
  for (const collection of collections) {
    const kind = collection.type === 'view' ? 'view' : 'collection';
    const sample = await db.collection(collection.name).find({}, { limit: SAMPLE_SIZE, useBigInt64: true }).toArray();
    const fields = new Map<string, FieldSeen>();
    for (const document of sample) {
      for (const key of Object.keys(document)) {
        const value = (document as Record<string, unknown>)[key];
        let seen = fields.get(key);
        if (!seen) fields.set(key, (seen = { types: [], present: 0, nulls: false }));
        seen.present++;
        const type = bsonTypeName(value);
        if (type === 'null') seen.nulls = true;
        else if (!seen.types.includes(type)) seen.types.push(type);
      }
    }
    if (fields.size === 0) rows.push({ table: collection.name, kind, column: null, type: '', nullable: true });
    for (const [name, seen] of fields) {
      rows.push({ table: collection.name, kind, column: name, type: seen.types.join('|') || 'null', nullable: seen.nulls || seen.present < sample.length });
    }
    columns += fields.size;
    // One column past the limit is enough for `truncated` to be exact.
    if (columns > maxColumns) break;
  }
  return buildListing(rows, maxColumns);
}

/** A reconstruction: the mongosh call that makes the collection (or view), with its indexes. */
export async function collectionDdl(db: Db, name: string): Promise<string> {
  const [info] = await db.listCollections({ name }, { nameOnly: false }).toArray();
  if (!info) throw new SluiceError('not_found', `Collection "${name}" not found`);
  const options = (info as { options?: Record<string, unknown> }).options ?? {};
  const lines = [`db.createCollection(${JSON.stringify(name)}${Object.keys(options).length > 0 ? `, ${JSON.stringify(options)}` : ''});`];
  if (info.type !== 'view') {
    for (const index of await db.collection(name).listIndexes().toArray()) {
      if (index.name === '_id_') continue;
      const { key, name: indexName, v: _v, ...rest } = index as Record<string, unknown>;
      lines.push(`db.getCollection(${JSON.stringify(name)}).createIndex(${JSON.stringify(key)}, ${JSON.stringify({ name: indexName, ...rest })});`);
    }
  }
  return lines.join('\n');
}
