import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SluiceError } from '../../../origin/errors.ts';
import { keyProblem } from '../../../origin/object-storage/key.ts';
import { realLocation } from '../../../origin/allowed-places.ts';
import { type LocalFolderRules, parseDestinationUrl } from '../../../origin/object-storage/url.ts';

/** Destination urls and object keys, read: bucket prefixes, local folders on a real file system, keys that would escape. */

let root: string;
let rules: LocalFolderRules;

beforeAll(async () => {
  root = realLocation(await mkdtemp(join(tmpdir(), 'sluice-url-')));
  await mkdir(join(root, 'exports', 'real'), { recursive: true });
  await mkdir(join(root, 'home'));
  await mkdir(join(root, 'elsewhere'));
  await symlink(join(root, 'elsewhere'), join(root, 'exports', 'out'));
  await symlink(join(root, 'exports', 'real'), join(root, 'exports', 'in'));
  rules = { exportDirs: [join(root, 'exports')], dataDir: join(root, 'exports', 'data'), home: join(root, 'home') };
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

function refusal(url: string, with_: LocalFolderRules = rules): string {
  try {
    parseDestinationUrl(url, with_);
  } catch (err) {
    expect(err).toBeInstanceOf(SluiceError);
    expect((err as SluiceError).status).toBe(400);
    return (err as SluiceError).message;
  }
  throw new Error(`${url} was accepted`);
}

describe('bucket urls', () => {
  it('give the scheme, the bucket and the prefix without its slashes', () => {
    expect(parseDestinationUrl('s3://my-bucket/daily/out/', rules)).toEqual({ kind: 'bucket', scheme: 's3', bucket: 'my-bucket', prefix: 'daily/out' });
    expect(parseDestinationUrl('gs://my_bucket.example', rules)).toEqual({ kind: 'bucket', scheme: 'gs', bucket: 'my_bucket.example', prefix: '' });
    expect(parseDestinationUrl('r2://abc/x', rules)).toMatchObject({ scheme: 'r2', prefix: 'x' });
  });

  it('refuse bad buckets and prefixes that could escape or mislead', () => {
    for (const url of ['s3://', 's3://ab', 's3://Caps/x', 's3://-lead/x', 's3://b\u00e9e/x', 's3://bucket/a/../b', 's3://bucket/./b', 's3://bucket/a//b', 's3://bucket/a\\b', 's3://bucket/x?y', 's3://bucket/x#y', 's3://bucket/x\u0001']) {
      refusal(url);
    }
  });

  it('refuse other schemes and relative paths', () => {
    for (const url of ['http://bucket/x', 'azure://c/x', 'exports/x', './x', '', 'file://host/x', 'file:tmp/x', 'file:/tmp/x', 'S3://bucket/x']) {
      expect(refusal(url)).toMatch(/^url /);
    }
  });
});

describe('local folders', () => {
  it('are taken inside an allowed folder, existing or not, symlinks followed', () => {
    expect(parseDestinationUrl(join(root, 'exports', 'new', 'deeper'), rules)).toEqual({ kind: 'folder', folder: join(root, 'exports', 'new', 'deeper') });
    expect(parseDestinationUrl(`file://${join(root, 'exports', 'real')}`, rules)).toEqual({ kind: 'folder', folder: join(root, 'exports', 'real') });
    expect(parseDestinationUrl(join(root, 'exports', 'in', 'x'), rules)).toEqual({ kind: 'folder', folder: join(root, 'exports', 'real', 'x') });
    expect(parseDestinationUrl(join(root, 'exports', 'real', '..', 'y'), rules)).toEqual({ kind: 'folder', folder: join(root, 'exports', 'y') });
  });

  it('are refused outside, after .. and symlinks, naming the allowed folders', () => {
    for (const url of [join(root, 'elsewhere'), `${root}/exports/../elsewhere`, join(root, 'exports', 'out'), join(root, 'exports', 'out', 'new'), '/']) {
      expect(refusal(url)).toContain(`SLUICE_EXPORT_DIRS): ${join(root, 'exports')}`);
    }
  });

  it('are refused when SLUICE_EXPORT_DIRS is unset', () => {
    expect(refusal(join(root, 'exports'), { ...rules, exportDirs: [] })).toContain('SLUICE_EXPORT_DIRS is not set');
  });

  it('are refused at the home folder or above it, and at, above or in the data directory', () => {
    const wide = { ...rules, exportDirs: [root] };
    expect(refusal(join(root, 'home'), wide)).toContain('home folder');
    expect(refusal(root, wide)).toContain('home folder');
    expect(parseDestinationUrl(join(root, 'home', 'exports'), wide)).toMatchObject({ kind: 'folder' });
    expect(refusal(join(root, 'exports', 'data'))).toContain('data directory');
    expect(refusal(join(root, 'exports', 'data', 'store'))).toContain('data directory');
    expect(refusal(join(root, 'exports'))).toContain('data directory');
  });
});

describe('object keys', () => {
  it('are plain relative paths', () => {
    for (const key of ['a.csv', 'daily/2024-01-01/run-7.parquet', '.hidden', 'a b/c..d']) expect(keyProblem(key), key).toBeNull();
  });

  it('never escape the prefix', () => {
    for (const key of ['', '/abs', '../up', 'a/../../b', 'a/./b', 'a//b', 'trailing/', 'back\\slash', 'nul\u0000', '..', '.']) {
      expect(keyProblem(key), key).not.toBeNull();
    }
  });
});
