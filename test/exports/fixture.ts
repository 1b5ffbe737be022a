import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { expect } from 'vitest';
import type { Origin } from '../harness/origin.ts';
import { unique } from '../harness/unique.ts';

/**
 * Shared pieces of the export tests: a folder the origin may export into
 * (SLUICE_EXPORT_DIRS), and destinations, saved queries and exports made
 * over the Management API.
 */

export const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };

/** A fresh folder for SLUICE_EXPORT_DIRS. */
export const exportRoot = () => mkdtemp(join(tmpdir(), 'sluice-exports-'));

export async function created(origin: Origin, path: string, body: Record<string, unknown>): Promise<any> {
  const res = await origin.call('POST', path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export async function pgConnection(origin: Origin): Promise<string> {
  const name = unique('pg');
  await created(origin, '/api/v1/connections', { name, db: 'postgres', ...PG });
  return name;
}

export async function savedQuery(origin: Origin, fields: Record<string, unknown>): Promise<string> {
  const name = unique('xq');
  await created(origin, '/api/v1/queries', { connection_name: 'examples', publish: true, ...fields, name });
  return name;
}

export async function localDestination(origin: Origin, folder: string): Promise<string> {
  const name = unique('dest');
  await created(origin, '/api/v1/destinations', { name, url: folder });
  return name;
}

export async function newExport(origin: Origin, fields: Record<string, unknown>): Promise<string> {
  const name = unique('export');
  await created(origin, '/api/v1/exports', { ...fields, name });
  return name;
}

export const runExport = (origin: Origin, name: string) => origin.call('POST', `/api/v1/exports/${encodeURIComponent(name)}/runs`);

/** An S3 destination on the test server (`s3://<bucket>/<prefix>` with its endpoint and credentials). */
export async function s3Destination(origin: Origin, s3: { endpoint: string; region: string; accessKeyId: string; secretAccessKey: string }, prefix: string): Promise<string> {
  const name = unique('s3dest');
  await created(origin, '/api/v1/destinations', {
    name,
    url: `s3://exports/${prefix}`,
    endpoint: s3.endpoint,
    region: s3.region,
    user: s3.accessKeyId,
    password: s3.secretAccessKey,
  });
  return name;
}

/** A table of `id bigint, note text` in the `test` database, under a unique name; `drop` removes it. */
export async function ordersTable(): Promise<{ name: string; sql: postgres.Sql; insert(from: number, to: number): Promise<void>; drop(): Promise<void> }> {
  const sql = postgres({ ...PG, max: 1, onnotice: () => {} });
  const name = unique('orders');
  await sql.unsafe(`create table ${name} (id bigint primary key, note text not null)`);
  return {
    name,
    sql,
    insert: async (from, to) => {
      await sql.unsafe(`insert into ${name} select g, 'order ' || g from generate_series(${from}, ${to}) g`);
    },
    drop: async () => {
      // A statement of a killed origin (the lease test's) keeps its lock until its sleep ends and the server sees the client gone.
      await sql.unsafe(`select pg_terminate_backend(pid) from pg_stat_activity where query like '%${name}%' and pid <> pg_backend_pid()`);
      await sql.unsafe(`drop table if exists ${name}`);
      await sql.end({ timeout: 5 });
    },
  };
}

/** The ids of an ndjson object, in order. */
export const ndjsonIds = (body: Buffer): number[] =>
  body
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => Number(JSON.parse(line).id));
