import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { projectPath } from '../../origin/paths.ts';
import { JSON_SCHEMA_PATH, configJsonSchemaText } from '../../origin/services/config/json-schema.ts';
import { configFileSchema, parseConfigFile } from '../../origin/services/config/file.ts';

/** The published JSON Schema of the configuration file, and the reader's problems. */

describe('the configuration file schema', () => {
  it('is committed as generated from the zod schemas (npm run config:schema)', async () => {
    expect(await readFile(projectPath(JSON_SCHEMA_PATH), 'utf8')).toBe(configJsonSchemaText());
  });

  it('names the resources’ own fields, refusing unknown ones', () => {
    const schema = JSON.parse(configJsonSchemaText());
    expect(Object.keys(schema.properties).sort()).toEqual(['api_keys', 'connections', 'descriptions', 'destinations', 'exports', 'format', 'format_version', 'queries', 'roles', 'workspace']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.api_keys.items.properties.secret_sha256.pattern).toBe('^[0-9a-f]{64}$');
    expect(schema.properties.queries.items.properties).not.toHaveProperty('publish');
    expect(schema.properties.connections.items.additionalProperties).toBe(false);
  });
});

describe('parseConfigFile', () => {
  const problemsOf = async (text: string, type: 'json' | 'yaml' = 'yaml') => {
    try {
      await parseConfigFile(Buffer.from(text), type);
      return [];
    } catch (err) {
      return (err as { extras: { errors: Array<{ path: string }> } }).extras.errors.map((e) => e.path);
    }
  };

  it('reads YAML and JSON alike', async () => {
    const yaml = 'format: sluice-config\nformat_version: 1\nqueries:\n  - name: q\n    sql: SELECT 1\n';
    const file = await parseConfigFile(Buffer.from(yaml));
    expect(await parseConfigFile(Buffer.from(JSON.stringify(parse(yaml))), 'json')).toEqual(file);
  });

  it('names each problem by its place in the file', async () => {
    expect(await problemsOf('format: sluice-config\nformat_version: 2\n')).toEqual(['format_version']);
    expect(await problemsOf('format: [unclosed')).toEqual(['']);
    expect(await problemsOf('{"format": "sluice-config"', 'json')).toEqual(['']);
    expect(await problemsOf('format: sluice-config\nformat_version: 1\napi_keys:\n  - {name: a, secret_sha256: ABC}\n')).toEqual(['api_keys[0].secret_sha256']);
    const sha = 'a'.repeat(64);
    expect(await problemsOf(`format: sluice-config\nformat_version: 1\napi_keys:\n  - {name: a, secret_sha256: ${sha}}\n  - {name: b, secret_sha256: ${sha}}\n`)).toEqual(['api_keys[1].secret_sha256']);
    expect(await problemsOf('format: sluice-config\nformat_version: 1\ndestinations:\n  - {name: d, url: /x, password: secret}\n')).toEqual(['destinations[0].password']);
    expect(await problemsOf('format: sluice-config\nformat_version: 1\nqueries:\n  - {name: "a\\0b", sql: x}\n')).toEqual(['queries[0].name']);
    expect(await problemsOf('format: sluice-config\nformat_version: 1\ndescriptions: {}\n')).toEqual([]);
    expect(await problemsOf('format: sluice-config\nformat_version: 1\ndescriptions:\n  pg:\n    notes: hi\n    items:\n      - {table: t, column: c, description: d}\n')).toEqual([]);
    expect(await problemsOf('format: sluice-config\nformat_version: 1\ndescriptions:\n  pg:\n    items:\n      - {table: t}\n')).toEqual(['descriptions.pg.items[0].description']);
  });

  it('reads a large YAML file in chunks as parseDocument reads it whole, and places an error by line', async () => {
    const queries = Array.from({ length: 3000 }, (_, i) => ({ name: `q${i}`, sql: `SELECT ${i}\nFROM t -- ${'x'.repeat(i % 50)}`, parameters: { a: 'integer' }, tags: ['a', 'b'] }));
    const text = stringify({ format: 'sluice-config', format_version: 1, queries });
    expect(text.length).toBeGreaterThan(3 * 64 * 1024);
    expect(await parseConfigFile(Buffer.from(text))).toEqual(configFileSchema.parse(parse(text)));
    const broken = `${text}\nqueries: [unclosed\n`;
    await expect(parseConfigFile(Buffer.from(broken))).rejects.toMatchObject({ code: 'invalid_config' });
    const problem = await parseConfigFile(Buffer.from('format: sluice-config\nformat_version: 1\n\nqueries: [unclosed\n')).catch((err) => err.message);
    expect(problem).toMatch(/not valid YAML: .* at line \d+, column \d+/);
    expect(await problemsOf('a: 1\n---\nb: 2\n')).toEqual(['']);
  });
});
