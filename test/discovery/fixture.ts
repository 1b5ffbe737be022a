import { expect } from 'vitest';
import type { Origin } from '../harness/origin.ts';

/** Shared pieces of the discovery tests: creating saved queries over the Management API. */

export const QUERIES = '/api/v1/queries';

export interface Saved {
  name: string;
  sql: string;
  connection_name?: string | null;
  parameters?: Record<string, unknown>;
  publish?: boolean;
  [field: string]: unknown;
}

/** Creates a saved query (published unless `publish: false`) on the examples connection. */
export async function save(origin: Origin, fields: Saved, headers: Record<string, string> = {}): Promise<void> {
  const res = await origin.call('POST', QUERIES, { connection_name: 'examples', publish: true, ...fields }, headers);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/** A distinctive text literal: if it shows up in a discovery answer, SQL leaked. */
export const SECRET_LITERAL = 'zq_sql_literal_5521';
