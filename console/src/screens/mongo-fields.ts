import { field, h, parseJson } from '../dom.ts';

const MONGO = { mongo_filter: 'Filter', mongo_projection: 'Projection', mongo_sort: 'Sort' } as const;

/**
 * A document query's definition (docs/reference/mongodb.md): the collection
 * read and the find's filter, projection and sort as JSON objects; a
 * parameter binds where a filter value is the string ":name".
 */
export function mongoFields(existing: any | null) {
  const collection = h('input', { value: existing?.mongo_collection ?? '', autocomplete: 'off' });
  const json = Object.fromEntries(
    Object.keys(MONGO).map((k) => [k, h('textarea', { class: 'code', rows: k === 'mongo_filter' ? 4 : 2, spellcheck: 'false' }, existing?.[k] ? JSON.stringify(existing[k], null, 2) : '')]),
  ) as Record<keyof typeof MONGO, HTMLTextAreaElement>;
  return {
    el: h('div', { class: 'grid-form', 'data-testid': 'mongo-fields' },
      field('MongoDB collection', collection),
      Object.entries(MONGO).map(([k, label]) => field(`${label} (JSON)`, json[k as keyof typeof MONGO], k === 'mongo_filter' ? '{"year": {"$gte": ":from"}}' : undefined)),
    ),
    /** The saved query's fields; an empty box is null (none). */
    value(): Record<string, unknown> {
      const body: Record<string, unknown> = { query_type: 'mongo', mongo_collection: collection.value.trim() };
      for (const [k, label] of Object.entries(MONGO)) body[k] = parseJson(label, json[k as keyof typeof MONGO].value) ?? null;
      return body;
    },
  };
}

/** The `":name"` strings of a filter, by first use: the parameters it binds (the SQL check finds none in a document query). */
export function filterMarkers(filter: unknown): string[] {
  const found = new Set<string>();
  const walk = (value: unknown): void => {
    if (typeof value === 'string' && /^:[A-Za-z_]\w*$/.test(value)) found.add(value.slice(1));
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(filter);
  return [...found];
}

/** How a version reads in the versions table. */
export function mongoSummary(v: any): string {
  return [`${v.mongo_collection}.find(${JSON.stringify(v.mongo_filter ?? {})})`, v.mongo_projection && `projection ${JSON.stringify(v.mongo_projection)}`, v.mongo_sort && `sort ${JSON.stringify(v.mongo_sort)}`].filter(Boolean).join(' · ');
}
