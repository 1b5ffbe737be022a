import { describe, expect, it } from 'vitest';
import { anchors, answers, assignedNames, examples, matches, originCommand, unmarkedCalls } from './examples.ts';

/** The docs test's own rules, on small pages: a rule that matched too much would let a changed answer pass. */

describe('reading a page', () => {
  it('finds marked blocks, their words and their answers, indented ones too, and none inside a ```` block', () => {
    const page = [
      '<!-- example: origin -->',
      '```sh',
      'SLUICE_API_KEY=k npm start &',
      '```',
      '- a list item:',
      '  <!-- example: retry -->',
      '  ```sh',
      '  curl -s $SLUICE/health',
      '  ```',
      '  <!-- expect: json -->',
      '  ```json',
      '  {"status": "ok"}',
      '  ```',
      '````markdown',
      '<!-- example -->',
      '```sh',
      'not run',
      '```',
      '````',
      '<!-- example: connection=examples -->',
      '```sql',
      'select 1 as one',
      '```',
      '<!-- expect: table -->',
      '| one |',
      '|---:|',
      '| 1 |',
    ].join('\n');
    const found = examples(page);
    expect(found.map((e) => [e.line, e.lang, e.words])).toEqual([
      [1, 'sh', ['origin']],
      [6, 'sh', ['retry']],
      [20, 'sql', ['connection=examples']],
    ]);
    expect(found[1]).toMatchObject({ code: 'curl -s $SLUICE/health', expect: { kind: 'json', body: '{"status": "ok"}' } });
    expect(found[2].expect).toEqual({ kind: 'table', header: ['one'], rows: [['1']] });
  });

  it('splits an origin block around its start command and names what it sets', () => {
    const block = ['KEY=$(openssl rand -hex 32)', "SLUICE_API_KEY='a b' SLUICE_SECRET_KEY=$KEY,\"$(echo x)\" \\", '  SLUICE_PORT=8080 npm start &', 'export SLUICE=x'].join('\n');
    const { before, assignments, after } = originCommand(block);
    expect(before).toBe('KEY=$(openssl rand -hex 32)');
    expect(after).toBe('export SLUICE=x');
    expect(assignedNames(assignments)).toEqual(['SLUICE_API_KEY', 'SLUICE_SECRET_KEY', 'SLUICE_PORT']);
    expect(originCommand('npm install && npm start')).toEqual({ before: '', assignments: '', after: '' });
  });

  it('names sh blocks that call the origin without a marker', () => {
    const page = ['```sh', 'curl $SLUICE/health', '```', '<!-- example -->', '```sh', 'curl $SLUICE/health', '```', '```sh', 'npm test', '```'].join('\n');
    expect(unmarkedCalls(page)).toEqual([1]);
  });

  it("gives headings GitHub's anchors, a repeated one numbered", () => {
    expect([...anchors('# GET, POST /q/{name}\n## What `detail` holds\n## Examples\n## Examples\n### SLUICE_METRICS_TOKEN')]).toEqual([
      'get-post-qname',
      'what-detail-holds',
      'examples',
      'examples-1',
      'sluice_metrics_token',
    ]);
  });
});

describe('comparing an answer with the one shown', () => {
  it('"..." is any value, or any text inside a string; other values must be equal', () => {
    expect(matches('...', null)).toBe(true);
    expect(matches('slc_...', 'slc_abc')).toBe(true);
    expect(matches('slc_...', 'key_abc')).toBe(false);
    expect(matches('...T23:59:59.999...', '2027-01-01T23:59:59.999+01:00')).toBe(true);
    expect(matches('a.b', 'axb')).toBe(false);
    expect(matches(1, 2)).toBe(false);
  });

  it('objects may hold more fields, a field named "..." is any other one; arrays are whole unless they end in "..."', () => {
    expect(matches({ a: 1 }, { a: 1, b: 2 })).toBe(true);
    expect(matches({ a: 1 }, { b: 1 })).toBe(false);
    expect(matches({ '...': 4 }, { '3f9a0c12': 4 })).toBe(true);
    expect(matches({ '...': 4 }, { '3f9a0c12': 5 })).toBe(false);
    expect(matches([1, 2], [1, 2, 3])).toBe(false);
    expect(matches([1, '...'], [1, 2, 3])).toBe(true);
    expect(matches([1, '...'], [2, 1])).toBe(false);
  });

  it('several JSON answers in a row, text lines in order, and table rows as text', () => {
    expect(answers({ kind: 'json', body: '{"a": 1}\n401' }, '{"a":1,"b":2}401')).toBe(true);
    expect(answers({ kind: 'json', body: '{"a": 1}' }, '{"a":1}{"a":1}')).toBe(false);
    expect(answers({ kind: 'text', body: 'one\nthree' }, 'one\ntwo\nthree\n')).toBe(true);
    expect(answers({ kind: 'text', body: 'three\none' }, 'one\ntwo\nthree\n')).toBe(false);
    expect(answers({ kind: 'text', body: '200\n200' }, '200\n')).toBe(false);
    expect(answers({ kind: 'table', header: ['n', 'd'], rows: [['1.5', '2024-01-05']] }, '[{"n":1.5,"d":"2024-01-05"}]')).toBe(true);
    expect(answers({ kind: 'table', header: ['n'], rows: [['2']] }, '[{"n":2},{"n":3}]')).toBe(false);
  });
});
