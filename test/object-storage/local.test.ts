import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SluiceError } from '../../origin/errors.ts';
import { openObjectStore } from '../../origin/object-storage/index.ts';
import type { ObjectStore } from '../../origin/object-storage/types.ts';
import { realLocation } from '../../origin/allowed-places.ts';

/**
 * A local-folder destination on the real file system: objects appear whole
 * under their final name or not at all; a cancelled or failed write leaves
 * nothing; a key never leads outside the folder.
 */

let root: string;
let folder: string;
let outside: string;
let store: ObjectStore;

beforeAll(async () => {
  root = realLocation(await mkdtemp(join(tmpdir(), 'sluice-local-')));
  folder = join(root, 'exports', 'dest');
  outside = join(root, 'outside');
  await mkdir(outside, { recursive: true });
  store = openObjectStore(
    { name: 'local', url: folder, region: null, endpoint: null, user: null, password: null },
    { SLUICE_EXPORT_DIRS: [join(root, 'exports')], SLUICE_DATA_DIR: join(root, 'data') },
  );
});

afterAll(async () => {
  store?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

const write = (key: string, body: AsyncIterable<Uint8Array>, signal = new AbortController().signal) =>
  store.put(key, body, { contentType: 'text/csv', signal });

async function* chunks(...parts: string[]) {
  for (const part of parts) yield Buffer.from(part);
}

/** Every file under `dir`, relative. */
async function files(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1)).sort();
}

describe('a local folder', () => {
  it('writes an object under its key, creating the folders, and answers its path and exact size', async () => {
    const data = randomBytes(3 * 2 ** 20 + 17);
    const written = await write('daily/2024-05-01/run-1.csv', (async function* () {
      for (let i = 0; i < data.length; i += 100_000) yield data.subarray(i, i + 100_000);
    })());
    expect(written).toEqual({ location: join(folder, 'daily', '2024-05-01', 'run-1.csv'), bytes: data.length });
    expect((await readFile(written.location)).equals(data)).toBe(true);
    expect(await files(folder)).toEqual(['daily/2024-05-01/run-1.csv']);
  });

  it('shows no file under the final name until the object is complete', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let midway!: () => void;
    const reached = new Promise<void>((resolve) => (midway = resolve));
    const pending = write('whole/file.csv', (async function* () {
      yield Buffer.from('id,name\n');
      midway();
      await held;
      yield Buffer.from('1,one\n');
    })());
    await reached;
    const during = await files(join(folder, 'whole'));
    expect(during).toHaveLength(1);
    expect(during[0]).toMatch(/^\.file\.csv\.[0-9a-f]{12}\.tmp$/);
    release();
    await pending;
    expect(await files(join(folder, 'whole'))).toEqual(['file.csv']);
    expect(await readFile(join(folder, 'whole', 'file.csv'), 'utf8')).toBe('id,name\n1,one\n');
  });

  it('replaces an object written again under the same key', async () => {
    await write('again.csv', chunks('first\n'));
    const second = await write('again.csv', chunks('second\n'));
    expect(second.bytes).toBe(7);
    expect(await readFile(second.location, 'utf8')).toBe('second\n');
  });

  it('leaves nothing when the write is aborted, even while the body waits', async () => {
    const controller = new AbortController();
    const reason = new Error('run cancelled');
    const pending = write('aborted/out.csv', (async function* () {
      yield Buffer.from('partial\n');
      controller.abort(reason);
      await new Promise(() => {});
    })(), controller.signal);
    await expect(pending).rejects.toBe(reason);
    // Nor the folder the write made for it.
    expect(existsSync(join(folder, 'aborted'))).toBe(false);
  });

  it("leaves nothing when the body fails, and reports the body's own error", async () => {
    const failure = new SluiceError('query_failed', 'The database rejected the query');
    const pending = write('failed/out.csv', (async function* () {
      yield Buffer.from('partial\n');
      throw failure;
    })());
    await expect(pending).rejects.toBe(failure);
    expect(existsSync(join(folder, 'failed'))).toBe(false);
  });

  it('refuses keys that would leave the folder, and sub-folders that are symlinks out of it', async () => {
    for (const key of ['../escape.csv', '/abs.csv', 'a/../../b.csv', 'a\\b.csv', 'dir/']) {
      await expect(write(key, chunks('x')), key).rejects.toMatchObject({ code: 'invalid_request', status: 400 });
    }
    await symlink(outside, join(folder, 'link'));
    await expect(write('link/out.csv', chunks('x'))).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await readdir(outside)).toEqual([]);
    expect(await files(root).then((all) => all.filter((f) => f.includes('escape') || f.endsWith('abs.csv') || f.endsWith('b.csv')))).toEqual([]);
  });

  it('answers 502 connection_failed when the file system refuses, leaving nothing', async () => {
    await write('taken/file.csv', chunks('x'));
    await expect(write('taken/file.csv/inner.csv', chunks('y'))).rejects.toMatchObject({ code: 'connection_failed', status: 502 });
    await mkdir(join(folder, 'a-dir.csv'));
    await expect(write('a-dir.csv', chunks('y'))).rejects.toMatchObject({ code: 'connection_failed' });
    expect((await readdir(folder)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect((await stat(join(folder, 'a-dir.csv'))).isDirectory()).toBe(true);
  });

  it('probe writes one object and removes it', async () => {
    const before = await files(folder);
    await store.probe();
    expect(await files(folder)).toEqual(before);
  });
});
