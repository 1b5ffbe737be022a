import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../harness/edge.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { copiedDataDir, shown, sluice } from './run-cli.ts';

/**
 * Where a command acts, and what it says when it cannot: `config new-key`
 * (no store, no server), `--server` without a key, with a bad URL, to
 * nothing, with a wrong key; the store itself when there is none, when a
 * running origin holds it, when a variable is malformed.
 */

const KEY = 'cli-targets-server-key-0123456789';
let origin: Origin;
let dataDir: string;

beforeAll(async () => {
  dataDir = await copiedDataDir();
  origin = await startOrigin({ dataDir, edge: false, env: { SLUICE_API_KEY: KEY } });
});

afterAll(async () => {
  await origin?.stop();
  if (dataDir) await rm(join(dataDir, '..'), { recursive: true, force: true });
});

describe('sluice config new-key', () => {
  it('prints a new secret and its SHA-256, lowercase hex', async () => {
    const run = await sluice(['config', 'new-key']);
    expect(run.code, shown(run)).toBe(0);
    const secret = /^secret: +(slc_[0-9A-Za-z]{32})$/m.exec(run.stdout)?.[1];
    const sha = /^secret_sha256: +([0-9a-f]{64})$/m.exec(run.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(sha).toBe(createHash('sha256').update(secret!).digest('hex'));
    expect(run.stderr).not.toContain(secret!);
  });

  it('prints one JSON document with --json, a new secret each time', async () => {
    const [a, b] = [await sluice(['config', 'new-key', '--json']), await sluice(['config', 'new-key', '--json'])];
    expect(a.code, shown(a)).toBe(0);
    const first = JSON.parse(a.stdout);
    const second = JSON.parse(b.stdout);
    expect(Object.keys(first).sort()).toEqual(['secret', 'secret_sha256']);
    expect(first.secret_sha256).toBe(createHash('sha256').update(first.secret).digest('hex'));
    expect(second.secret).not.toBe(first.secret);
  });
});

describe('--server', () => {
  it('needs SLUICE_CLI_API_KEY, and says so', async () => {
    const run = await sluice(['collection', 'export', 'anything', '--server', origin.url]);
    expect(run.code, shown(run)).toBe(1);
    expect(run.stderr).toContain('--server needs an API key, and SLUICE_CLI_API_KEY is not set');
    expect(run.stderr).toContain('it is never taken as an argument');
  });

  it.each([['not a url'], ['ftp://example.com']])('refuses %j as the server', async (url) => {
    const run = await sluice(['collection', 'export', 'anything', '--server', url], { env: { SLUICE_CLI_API_KEY: KEY } });
    expect(run.code, shown(run)).toBe(1);
    expect(run.stderr).toMatch(/--server .* (is not a URL|must be an http:\/\/ or https:\/\/ URL)/);
    expect(run.stderr).toContain('e.g. --server http://127.0.0.1:8080');
  });

  it('names a server it cannot reach', async () => {
    // A port just free: nothing listens there.
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const run = await sluice(['collection', 'export', 'anything', '--server', nowhere], { env: { SLUICE_CLI_API_KEY: KEY } });
    expect(run.code, shown(run)).toBe(1);
    expect(run.stderr).toContain(`cannot reach ${nowhere}: ECONNREFUSED`);
  });

  it('says the server refused the key, and which variable holds it', async () => {
    const run = await sluice(['collection', 'export', 'anything', '--server', origin.url], { env: { SLUICE_CLI_API_KEY: 'not-the-key-0123456789' } });
    expect(run.code, shown(run)).toBe(1);
    expect(run.stderr).toContain('The server refused the key: set SLUICE_CLI_API_KEY');
    expect(run.stderr).toMatch(/\(request id [0-9a-f]{12}\)/);
  });

  it('passes the server\'s own answer on, with --json as one document', async () => {
    const run = await sluice(['collection', 'import', '-', '--server', origin.url, '--json'], {
      env: { SLUICE_CLI_API_KEY: KEY },
      input: '{"format": "sluice-bundle", "format_version": 1, "queries": []}',
    });
    expect(run.code, shown(run)).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ code: 'invalid_request', errors: { collection: expect.any(String) } });
    expect(run.stderr).toContain('(standard input): collection: the bundle names none');
  });
});

describe('the store itself', () => {
  it('says a running origin holds it, and points at --server', async () => {
    const run = await sluice(['collection', 'export', 'anything'], { env: { SLUICE_DATA_DIR: dataDir } });
    expect(run.code, shown(run)).toBe(1);
    expect(run.stderr).toMatch(/in use by another origin \(pid \d+\)/);
    expect(run.stderr).toContain('act through it with --server http://HOST:PORT (and SLUICE_CLI_API_KEY)');
  });

  it('makes no store where a reading command finds none', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'sluice-cli-empty-'));
    try {
      const run = await sluice(['collection', 'export', 'anything'], { env: { SLUICE_DATA_DIR: empty } });
      expect(run.code, shown(run)).toBe(1);
      expect(run.stderr).toContain(`there is no Sluice store in ${empty}`);
      expect(run.stderr).toContain('Set SLUICE_DATA_DIR to the data folder of the origin');
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('names a malformed variable, never echoing a secret one', async () => {
    const run = await sluice(['collection', 'export', 'anything'], { env: { SLUICE_DATA_DIR: dataDir, SLUICE_DATABASE_URL: 'mysql://user:hunter2@db/x' } });
    expect(run.code, shown(run)).toBe(1);
    expect(run.stderr).toContain('SLUICE_DATABASE_URL: must be a postgres:// URL');
    expect(run.stderr).not.toContain('hunter2');
  });
});
