import { queryParam } from '../../../services/discovery/operations.ts';
import type { ParameterObject } from '../../../services/discovery/parameter-schema.ts';
import { type FilterName, MAX_LIMIT } from '../../../services/history/filters.ts';

const text = { type: 'string' };
const time = { type: 'string', description: 'YYYY-MM-DD, or a date and time with an optional zone (else the server zone)' };

/** The filters `parseHistoryFilters` reads, as documented query parameters. */
const FILTERS: Record<FilterName, ParameterObject> = {
  query: queryParam('query', text, 'Saved query name'),
  version: queryParam('version', { type: 'integer', minimum: 1 }),
  status: queryParam('status', { type: 'string', enum: ['success', 'error'] }),
  key: queryParam('key', text, "Caller's name"),
  since: queryParam('since', time, 'Inclusive'),
  until: queryParam('until', time, 'Exclusive'),
  limit: queryParam('limit', { type: 'integer', minimum: 1, maximum: MAX_LIMIT }),
  cursor: queryParam('cursor', text, 'next_cursor of the previous page'),
};

export const historyParameters = (names: readonly FilterName[]): ParameterObject[] => names.map((name) => FILTERS[name]);
