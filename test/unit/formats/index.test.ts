import { describe, expect, it, vi } from 'vitest';
import { FORMATS, STREAMABLE, serializerFor, uniqueColumnNames } from '../../../origin/formats/index.ts';
import { xmlElementName } from '../../../origin/formats/names.ts';

describe('uniqueColumnNames', () => {
  it('suffixes duplicates without colliding with existing names', () => {
    expect(uniqueColumnNames(['id', 'id', 'id'])).toEqual(['id', 'id_2', 'id_3']);
    expect(uniqueColumnNames(['id', 'id', 'id_2'])).toEqual(['id', 'id_3', 'id_2']);
    expect(uniqueColumnNames(['id_2', 'id', 'id'])).toEqual(['id_2', 'id', 'id_3']);
    expect(uniqueColumnNames(['a', 'a', 'a_2', 'a_2'])).toEqual(['a', 'a_3', 'a_2', 'a_2_2']);
    expect(uniqueColumnNames(['', '', 'A', 'a'])).toEqual(['', '_2', 'A', 'a']);
  });
});

describe('xmlElementName', () => {
  it('turns any name into an XML name', () => {
    expect(xmlElementName('ok_name-1.x')).toBe('ok_name-1.x');
    expect(xmlElementName('1 bad<name>&')).toBe('_1_bad_name__');
    expect(xmlElementName('xmlData')).toBe('_xmlData');
    expect(xmlElementName('')).toBe('column');
    expect(xmlElementName('ns:tag')).toBe('ns_tag');
    expect(xmlElementName('😀')).toBe('😀');
    expect(xmlElementName('a×b')).toBe('a_b');
    expect(xmlElementName('naïve')).toBe('naïve');
  });
});

describe('serializerFor', () => {
  it('knows every format, its content type and extension', async () => {
    const types: Record<string, [string, string]> = {};
    for (const format of FORMATS) {
      const s = await serializerFor(format);
      types[format] = [s.contentType, s.extension];
    }
    expect(types).toEqual({
      json: ['application/json', 'json'],
      ndjson: ['application/x-ndjson', 'ndjson'],
      csv: ['text/csv; charset=utf-8', 'csv'],
      tsv: ['text/tab-separated-values; charset=utf-8', 'tsv'],
      xml: ['application/xml', 'xml'],
      yaml: ['application/yaml', 'yaml'],
      xlsx: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'xlsx'],
      parquet: ['application/vnd.apache.parquet', 'parquet'],
    });
    expect([...STREAMABLE].sort()).toEqual(['csv', 'ndjson', 'parquet', 'tsv']);
    expect(await serializerFor('csv')).toBe(await serializerFor('csv'));
  });
});

describe('a missing parquet component', () => {
  it('gives format_unavailable', async () => {
    vi.resetModules();
    vi.doMock('hyparquet-writer', () => {
      throw new Error('Cannot find package hyparquet-writer');
    });
    try {
      const fresh = await import('../../../origin/formats/index.ts');
      await expect(fresh.serializerFor('parquet')).rejects.toMatchObject({ code: 'format_unavailable', status: 500 });
      await expect(fresh.serializerFor('csv')).resolves.toMatchObject({ extension: 'csv' });
    } finally {
      vi.doUnmock('hyparquet-writer');
      vi.resetModules();
    }
  });
});
