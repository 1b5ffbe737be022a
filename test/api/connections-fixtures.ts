import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import postgres from 'postgres';

/** The machine's test databases (trust auth on Postgres, root without password on MariaDB). */
export const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };
export const MY = { host: '127.0.0.1', port: 3306, user: 'root', database: 'test' };


export async function pgExec(...statements: string[]): Promise<void> {
  const sql = postgres({ ...PG, max: 1, onnotice: () => {} });
  try {
    for (const statement of statements) await sql.unsafe(statement);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function myExec(...statements: string[]): Promise<void> {
  const conn = await mysql.createConnection({ ...MY, password: '' });
  try {
    for (const statement of statements) await conn.query(statement);
  } finally {
    await conn.end();
  }
}

export function sqliteExec(file: string, ...statements: string[]): void {
  const db = new Database(file);
  try {
    for (const statement of statements) db.exec(statement);
  } finally {
    db.close();
  }
}

/** Runs statements in a DuckDB file and closes it (checkpointed), so the origin may open it. */
export async function duckdbExec(file: string, ...statements: string[]): Promise<void> {
  const instance = await DuckDBInstance.create(file);
  const conn = await instance.connect();
  try {
    for (const statement of statements) await conn.run(statement);
    await conn.run('CHECKPOINT');
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

export async function tempDir(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-conn-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
