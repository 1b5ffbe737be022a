import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { projectPath } from '../../origin/paths.ts';
import { JSON_SCHEMA_PATH, configJsonSchemaText } from '../../origin/services/config/json-schema.ts';
import { parseConfigFile } from '../../origin/services/config/file.ts';

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
  const problemsOf = (text: string, type: 'json' | 'yaml' = 'yaml') => {
    try {
      parseConfigFile(Buffer.from(text), type);
      return [];
    } catch (err) {
      return (err as { extras: { errors: Array<{ path: string }> } }).extras.errors.map((e) => e.path);
    }
  };

  it('reads YAML and JSON alike', () => {
    const yaml = 'format: sluice-config\nformat_version: 1\nqueries:\n  - name: q\n    sql: SELECT 1\n';
    const file = parseConfigFile(Buffer.from(yaml));
    expect(parseConfigFile(Buffer.from(JSON.stringify(parse(yaml))), 'json')).toEqual(file);
  });

  it('names each problem by its place in the file', () => {
    expect(problemsOf('format: sluice-config\nformat_version: 2\n')).toEqual(['format_version']);
    expect(problemsOf('format: [unclosed')).toEqual(['']);
    expect(problemsOf('{"format": "sluice-config"', 'json')).toEqual(['']);
    expect(problemsOf('format: sluice-config\nformat_version: 1\napi_keys:\n  - {name: a, secret_sha256: ABC}\n')).toEqual(['api_keys[0].secret_sha256']);
    const sha = 'a'.repeat(64);
    expect(problemsOf(`format: sluice-config\nformat_version: 1\napi_keys:\n  - {name: a, secret_sha256: ${sha}}\n  - {name: b, secret_sha256: ${sha}}\n`)).toEqual(['api_keys[1].secret_sha256']);
    expect(problemsOf('format: sluice-config\nformat_version: 1\ndestinations:\n  - {name: d, url: /x, password: secret}\n')).toEqual(['destinations[0].password']);
    expect(problemsOf('format: sluice-config\nformat_version: 1\nqueries:\n  - {name: "a\\0b", sql: x}\n')).toEqual(['queries[0].name']);
    expect(problemsOf('format: sluice-config\nformat_version: 1\ndescriptions: {}\n')).toEqual([]);
    expect(problemsOf('format: sluice-config\nformat_version: 1\ndescriptions:\n  pg:\n    notes: hi\n    items:\n      - {table: t, column: c, description: d}\n')).toEqual([]);
    expect(problemsOf('format: sluice-config\nformat_version: 1\ndescriptions:\n  pg:\n    items:\n      - {table: t}\n')).toEqual(['descriptions.pg.items[0].description']);
  });
});
