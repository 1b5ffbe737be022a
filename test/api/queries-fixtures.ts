import { expect } from 'vitest';
import type { Origin } from '../harness/origin.ts';

/** Shared helpers of the saved-query Management API tests. */

export const API = '/api/v1/queries';
export const at = (name: string) => `${API}/${encodeURIComponent(name)}`;
export const versionAt = (name: string, version: number | string) => `${at(name)}/versions/${version}`;
export const ZONED = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/;


/** SQL against the bundled examples connection. */
export const FILM_SQL = 'select title, price from films where id = :id';

export type Reply = { status: number; headers: Headers; body: any };

/** A minimal valid definition, with overrides. */
export const definition = (extra: Record<string, unknown> = {}) => ({
  sql: FILM_SQL,
  parameters: { id: 'int' },
  connection_name: 'examples',
  ...extra,
});

export async function createQuery(origin: Origin, name: string, extra: Record<string, unknown> = {}): Promise<Reply> {
  const res = await origin.call('POST', API, { name, ...definition(extra) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res;
}

export async function addVersion(origin: Origin, name: string, extra: Record<string, unknown> = {}): Promise<Reply> {
  const res = await origin.call('POST', `${at(name)}/versions`, definition(extra));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res;
}

/** `{version: status}` of a query read, plus its published version. */
export function statuses(query: any): { published: number | null; versions: Record<number, string> } {
  return {
    published: query.published_version,
    versions: Object.fromEntries(query.versions.map((v: any) => [v.version, v.status])),
  };
}

export async function readStatuses(origin: Origin, name: string) {
  const res = await origin.call('GET', at(name));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return statuses(res.body);
}
