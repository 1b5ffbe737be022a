import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { DRIVERS } from '../query/fixture.ts';
import { parseCsv, parseXml, unescapeTsv } from '../unit/formats/parsers.ts';
import {
  BAD_NAME,
  BIG,
  DEC,
  type FormatEnv,
  ROW_COUNT,
  cellText,
  columnsOf,
  expectPaged,
  jsonRowText,
  jsonRowValue,
  post,
  startFormatEnv,
  valuesSql,
  yamlRowValue,
} from './fixture.ts';

/**
 * The text formats (json, ndjson, csv, tsv, xml, yaml) on every database,
 * read back with strict parsers: every cell of the values table comes back as
 * the database holds it (64-bit integers and 20-digit decimals exact, instants
 * in the server zone with their offset, text byte for byte, NULL distinct).
 */

let env: FormatEnv;
beforeAll(async () => {
  env = await startFormatEnv();
});
afterAll(async () => {
  await env?.close();
});

const rowIndexes = Array.from({ length: ROW_COUNT }, (_, r) => r);

describe.each(DRIVERS)('%s', (driver) => {
  const columns = columnsOf(driver);
  const names = columns.map((c) => c.name);
  const run = (format: string) => post(env.origin, { sql: valuesSql(driver), connection_name: env.conn[driver] }, { format });

  it('json: an array of objects, 64-bit integers and decimals as exact number literals', async () => {
    const res = await run('json');
    expectPaged(res, 'json');
    expect(res.text).toContain(`"big":${BIG}`);
    expect(res.text).toContain(`"big":-${BIG}`);
    expect(res.text).toContain(driver === 'sqlite' ? `"amount":"${DEC}"` : `"amount":${DEC}`);
    // Each row's exact text: keys in column order, digits untouched, text escaped.
    for (const r of rowIndexes) expect(res.text).toContain(jsonRowText(columns, r));
    const rows = JSON.parse(res.text);
    expect(rows.map((row: object) => Object.keys(row))).toEqual(rowIndexes.map(() => names));
    expect(rows).toEqual(rowIndexes.map((r) => jsonRowValue(columns, r)));
  });

  it('ndjson: one object per LF-terminated line, the same objects as json', async () => {
    const res = await run('ndjson');
    expectPaged(res, 'ndjson');
    expect(res.text.endsWith('\n')).toBe(true);
    const lines = res.text.slice(0, -1).split('\n');
    expect(lines).toEqual(rowIndexes.map((r) => jsonRowText(columns, r)));
    expect(lines.map((line) => JSON.parse(line))).toEqual(rowIndexes.map((r) => jsonRowValue(columns, r)));
  });

  it('csv: RFC 4180 with a header; NULL an empty unquoted field, the empty string ""', async () => {
    const res = await run('csv');
    expectPaged(res, 'csv');
    expect(res.text.charCodeAt(0)).not.toBe(0xfeff);
    const [header, ...records] = parseCsv(res.text);
    expect(header.map((f) => f.value)).toEqual(names);
    expect(records).toHaveLength(ROW_COUNT);
    records.forEach((record, r) => {
      expect(record.map((f) => f.value), `row ${r + 1}`).toEqual(columns.map((c) => cellText(c, r) ?? ''));
      columns.forEach((c, i) => {
        const text = cellText(c, r);
        if (text === null) expect(record[i], `${c.name} NULL`).toEqual({ value: '', quoted: false });
        if (text === '') expect(record[i], `${c.name} empty`).toEqual({ value: '', quoted: true });
      });
    });
    expect(res.text).toContain(`,${BIG},`);
  });

  it('tsv: a header, tab-separated, LF lines; backslash, tab, LF and CR escaped', async () => {
    const res = await run('tsv');
    expectPaged(res, 'tsv');
    const lines = res.text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(ROW_COUNT + 1);
    expect(lines[0].split('\t')).toEqual(names);
    expect(res.text).not.toContain('\r');
    lines.slice(1).forEach((line, r) => {
      const fields = line.split('\t');
      expect(fields).toHaveLength(columns.length);
      // NULL and the empty string are both an empty field in tsv.
      expect(fields.map(unescapeTsv), `row ${r + 1}`).toEqual(columns.map((c) => cellText(c, r) ?? ''));
    });
    expect(res.text).toContain('x\\ty\\nz\\rw <&> \\\\ end');
  });

  it(`xml: well-formed even for a column named ${BAD_NAME}; NULL is xsi:nil, CR kept`, async () => {
    const res = await run('xml');
    expectPaged(res, 'xml');
    const root = parseXml(res.text);
    expect(root.name).toBe('rows');
    expect(root.children).toHaveLength(ROW_COUNT);
    root.children.forEach((row, r) => {
      expect(row.name).toBe('row');
      expect(row.children.map((cell) => cell.attrs.name ?? cell.name)).toEqual(names);
      row.children.forEach((cell, i) => {
        const column = columns[i];
        if (column.name === BAD_NAME) expect(cell.name).toMatch(/^[A-Za-z_][\w.-]*$/);
        else {
          expect(cell.name).toBe(column.name);
          expect(cell.attrs).not.toHaveProperty('name');
        }
        const text = cellText(column, r);
        if (text === null) {
          expect(cell.attrs['xsi:nil'], `${column.name} row ${r + 1}`).toBe('true');
          expect(cell.text).toBe('');
        } else {
          expect(cell.attrs, `${column.name} row ${r + 1}`).not.toHaveProperty('xsi:nil');
          expect(cell.text, `${column.name} row ${r + 1}`).toBe(text);
        }
        expect(cell.children).toEqual([]);
      });
    });
  });

  it('yaml: a sequence of mappings; integers exact with intAsBigInt, text stays text', async () => {
    const res = await run('yaml');
    expectPaged(res, 'yaml');
    expect(res.text).toMatch(new RegExp(`^  big: ${BIG}$`, 'm'));
    if (driver !== 'sqlite') expect(res.text).toMatch(new RegExp(`^  amount: ${DEC.replace('.', '\\.')}$`, 'm'));
    const doc = YAML.parseDocument(res.text, { intAsBigInt: true, uniqueKeys: true });
    expect(doc.errors).toEqual([]);
    expect(doc.warnings).toEqual([]);
    const rows = doc.toJS() as Record<string, unknown>[];
    expect(rows.map((row) => Object.keys(row))).toEqual(rowIndexes.map(() => names));
    expect(rows).toEqual(rowIndexes.map((r) => yamlRowValue(columns, r)));
    // YAML 1.1 readers too: the same values (dates and "true"-like text stay strings).
    expect(YAML.parse(res.text, { version: '1.1', intAsBigInt: true })).toEqual(rows);
  });
});
