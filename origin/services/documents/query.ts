import { documentMarkers, refusedOperators } from './bind.ts';

/**
 * The shape rules of a document query, shared by saved queries
 * (`mongo_collection`, `mongo_filter`...) and `POST /execute_mongo`
 * (`collection`, `filter`...): the collection is a name, the filter,
 * projection and sort are JSON objects, no refused operator appears, and
 * parameters bind into the filter only.
 */

export interface DocumentParts {
  collection: unknown;
  filter: unknown;
  projection: unknown;
  sort: unknown;
}

export interface CheckedParts {
  collection: string;
  filter: Record<string, unknown>;
  projection: Record<string, unknown> | null;
  sort: Record<string, unknown> | null;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every problem, keyed by the field names the caller uses (`names`), and the parts when there is none. */
export function checkDocumentParts(
  parts: DocumentParts,
  names: Record<keyof DocumentParts, string>,
): { problems: Record<string, string>; checked: CheckedParts | null } {
  const problems: Record<string, string> = {};
  const { collection } = parts;
  if (collection === undefined || collection === null || collection === '') problems[names.collection] = 'is required';
  else if (typeof collection !== 'string') problems[names.collection] = 'must be a collection name';
  else if (collection.length > 255 || collection.includes('$') || collection.includes('\0') || collection.startsWith('system.')) {
    problems[names.collection] = 'must be a collection name: at most 255 characters, no "$" or NUL, not a system. collection';
  }
  for (const field of ['filter', 'projection', 'sort'] as const) {
    const value = parts[field];
    if (value === undefined || value === null) continue;
    if (!isPlainObject(value)) {
      problems[names[field]] = 'must be a JSON object';
      continue;
    }
    const refused = refusedOperators(value);
    if (refused.length > 0) problems[names[field]] = `uses ${refused.join(', ')}: operators that run code, read other collections or write are refused`;
    else if (field !== 'filter' && documentMarkers(value).length > 0) problems[names[field]] = `binds a parameter: parameters bind into ${names.filter} only`;
  }
  if (Object.keys(problems).length > 0) return { problems, checked: null };
  return {
    problems,
    checked: {
      collection: collection as string,
      filter: (parts.filter as Record<string, unknown> | null | undefined) ?? {},
      projection: (parts.projection as Record<string, unknown> | null | undefined) ?? null,
      sort: (parts.sort as Record<string, unknown> | null | undefined) ?? null,
    },
  };
}

/**
 * The fields a projection names for output, in its order, `_id` first unless
 * excluded; empty when it only excludes (then the documents decide).
 */
export function projectedFields(projection: Record<string, unknown> | null): string[] {
  if (!projection) return [];
  // `a.b` comes back as the top-level field `a` holding a document.
  const included = [...new Set(Object.entries(projection).filter(([name, spec]) => name !== '_id' && spec !== 0 && spec !== false).map(([name]) => name.split('.')[0]))];
  if (included.length === 0) return [];
  const id = projection._id;
  return id === 0 || id === false ? included : ['_id', ...included.filter((name) => name !== '_id')];
}
