import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { formatInstantMicros } from '../../../origin/time.ts';
import { BIG, COLUMNS, DEC, DOC, INSTANT_MICROS, NAMES, TRICKY, UNICODE, expectedText, render } from './fixture.ts';
import { parseCsv, parseXml, unescapeTsv } from './parsers.ts';

const EXPECTED = expectedText(formatInstantMicros);

/** The JSON values every JSON-like format should give back (bigint and decimals compared as text elsewhere). */
function expectedObjects() {
  return [
    { id: 1, flt: 1.5, flag: true, day: '2024-02-29', clock: '13:45:30.123456', local: '2024-03-10T02:30:00.123456',
      at: formatInstantMicros(INSTANT_MICROS), txt: UNICODE, bin: 'AAEC+v8=', id_2: 'dup', '1 bad<name>&': 42, u_mix: 'x' },
    { id: 2, flt: -0.25, flag: false, day: '1969-12-31', clock: '00:00:00', local: '1900-01-01T00:00:00',
      at: formatInstantMicros(-1n), txt: TRICKY, doc: [], bin: '', id_2: '', '1 bad<name>&': -7, u_dec: 3, u_mix: 5 },
    Object.fromEntries(NAMES.map((name) => [name, name === 'id' ? 3 : null])),
    { id: 4, big: 0, dec: 0, flag: false, day: '0001-01-01', at: formatInstantMicros(0n), txt: 'true', doc: 's', bin: 'PQ==',
      id_2: '007', '1 bad<name>&': 0, u_dec: -12.345, u_mix: true },
  ];
}

describe('json', () => {
  it('is an array of objects with exact bigint and decimal literals', async () => {
    const text = (await render('json')).toString('utf8');
    expect(text).toContain('"big":9007199254740993,');
    expect(text).toContain(`"dec":${DEC},`);
    expect(text).toContain('"big":-9223372036854775808,');
    expect(text).toContain('"doc":{"a":[1,2,{"b":null}],"big":12345678901234567890,');
    const rows = JSON.parse(text) as Record<string, unknown>[];
    expect(rows).toHaveLength(4);
    rows.forEach((row, i) => {
      expect(Object.keys(row)).toEqual(NAMES);
      expect(row).toMatchObject(expectedObjects()[i]);
    });
    expect(rows[0].doc).toEqual({ ...DOC, big: Number(DOC.big) });
    expect(rows[3].flt).toBeNull(); // NaN
  });

  it('gives [] for no rows', async () => {
    expect(JSON.parse((await render('json', COLUMNS, [])).toString())).toEqual([]);
  });
});

describe('ndjson', () => {
  it('is one object per LF-terminated line', async () => {
    const text = (await render('ndjson')).toString('utf8');
    expect(text.endsWith('}\n')).toBe(true);
    const lines = text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toContain(`"big":9007199254740993,"dec":${DEC},`);
    lines.forEach((line, i) => expect(JSON.parse(line)).toMatchObject(expectedObjects()[i]));
    expect((await render('ndjson', COLUMNS, [])).length).toBe(0);
  });
});

describe('csv', () => {
  it('round-trips through an RFC 4180 parser; NULL unquoted empty, empty string quoted', async () => {
    const text = (await render('csv')).toString('utf8');
    expect(text.endsWith('\r\n')).toBe(true);
    const records = parseCsv(text);
    expect(records.map((r) => r.map((f) => f.value))[0]).toEqual(NAMES);
    const body = records.slice(1);
    expect(body).toHaveLength(4);
    body.forEach((record, i) => {
      expect(record.map((f) => (f.value === '' && !f.quoted ? null : f.value))).toEqual(EXPECTED[i]);
    });
    expect(text).toContain('"say ""hi"", ok;\ttab\nnew\r\nline\\ back\rcr"');
  });
});

describe('tsv', () => {
  it('escapes tab, newline, CR and backslash; NULL is an empty field', async () => {
    const text = (await render('tsv')).toString('utf8');
    const lines = text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(5);
    const cells = lines.map((line) => line.split('\t').map(unescapeTsv));
    expect(cells[0]).toEqual(NAMES);
    cells.slice(1).forEach((row, i) => {
      expect(row).toEqual(EXPECTED[i].map((v) => v ?? ''));
    });
    expect(lines[2]).toContain('say "hi", ok;\\ttab\\nnew\\r\\nline\\\\ back\\rcr');
  });
});

describe('xml', () => {
  it('is well-formed, with sanitised element names and the original in name=', async () => {
    const doc = parseXml((await render('xml')).toString('utf8'));
    expect(doc.name).toBe('rows');
    expect(doc.children).toHaveLength(4);
    doc.children.forEach((row, i) => {
      expect(row.name).toBe('row');
      expect(row.children.map((c) => c.attrs.name ?? c.name)).toEqual(NAMES);
      expect(row.children.map((c) => (c.attrs['xsi:nil'] === 'true' ? null : c.text))).toEqual(EXPECTED[i]);
    });
    expect(doc.children[0].children[13].name).toBe('_1_bad_name__');
  });

  it('survives hostile column names and control characters', async () => {
    const names = ['', 'xmlish', 'XML', '-x', '.x', 'a:b', '日本', 'a b', 'a_b', '\u0001ctl', 'a"b\'c\t\n', '9'];
    const columns = names.map((name) => ({ name, dbType: 'text', kind: 'text' as const }));
    const row = names.map((_, i) => (i === 0 ? 'bell\u0007 nul\u0000 \uFFFF lone\uD800 ok' : `v${i}`));
    const doc = parseXml((await render('xml', columns, [row])).toString('utf8'));
    const cells = doc.children[0].children;
    expect(cells.map((c) => c.attrs.name ?? c.name)).toEqual(names.map((n) => n.replace('\u0001', '\uFFFD')));
    expect(cells.map((c) => c.name)).toEqual(['column', '_xmlish', '_XML', '_-x', '_.x', 'a_b_2', '日本', 'a_b_3', 'a_b', '_ctl', 'a_b_c__', '_9']);
    expect(cells[0].text).toBe('bell\uFFFD nul\uFFFD \uFFFD lone\uFFFD ok');
  });
});

describe('yaml', () => {
  it('parses back to the same values, strings that look like scalars stay strings', async () => {
    const text = (await render('yaml')).toString('utf8');
    expect(text).toContain(`  dec: ${DEC}\n`);
    const rows = parseYaml(text, { intAsBigInt: true }) as Record<string, unknown>[];
    expect(rows).toHaveLength(4);
    rows.forEach((row) => expect(Object.keys(row)).toEqual(NAMES));
    expect(rows[0].big).toBe(BIG);
    expect(rows[1].big).toBe(-9223372036854775808n);
    expect(rows[0].doc).toEqual({ ...DOC, a: [1n, 2n, { b: null }] });
    const plain = rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
    plain.forEach((row, i) => expect(row).toMatchObject(expectedObjects()[i]));
    expect(rows[3].flt).toBeNaN();
    expect(rows[3].id_2).toBe('007');
    expect(rows[3].txt).toBe('true');
    expect((parseYaml((await render('yaml', COLUMNS, [])).toString()) as unknown[]).length).toBe(0);
  });

  it('keeps odd strings and keys intact', async () => {
    const tricky = ['null', '~', 'yes', 'on', '1e3', '0x1F', '-', '- x', ': y', '#c', '  pad  ', '\u0085nel\u2028ls\u007f', "'q'", '@a', '`b', '%c', '!t', '*x', '&y', '[1]', '{a: 1}', '|', '>'];
    const columns = tricky.map((name) => ({ name, dbType: 'text', kind: 'text' as const }));
    const rows = parseYaml((await render('yaml', columns, [tricky, tricky])).toString(), { version: '1.1' }) as Record<string, unknown>[];
    expect(rows).toEqual([Object.fromEntries(tricky.map((t) => [t, t])), Object.fromEntries(tricky.map((t) => [t, t]))]);
  });
});
