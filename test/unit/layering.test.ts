import { readFileSync, readdirSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layers, read from the imports (docs/reference/source-map.md): the transports
 * (`origin/http`, `origin/routes`, wired in `app.ts`/`main.ts`, and the `sluice`
 * command in `origin/cli`) sit on the services, which sit on everything else; `shared/` stands alone and the
 * edge Worker never reaches into the origin.
 */

const ROOT = join(import.meta.dirname, '..', '..');

interface Import {
  from: string;
  to: string;
}

interface Rule {
  why: string;
  applies: (from: string) => boolean;
  forbids: (to: string) => boolean;
}

const under = (...folders: string[]) => (path: string) => folders.some((folder) => path.startsWith(`${folder}/`));

const TRANSPORT = under('origin/http', 'origin/routes');
const BELOW_SERVICES = under(
  'origin/store',
  'origin/redis',
  'origin/sql',
  'origin/drivers',
  'origin/formats',
  'origin/observability',
  'origin/secrets',
  'origin/audit',
  'origin/alerts',
  'origin/cache',
  'origin/access',
  'origin/object-storage',
  'origin/network',
);

/** What only the run path touches: the history recorder, the usage counters, the response cache. */
const RUN_PATH_ONLY = ['origin/services/history/recorder.ts', 'origin/access/usage.ts', 'origin/cache/response-cache.ts', 'origin/cache/key.ts'];

const RULES: Rule[] = [
  {
    why: 'the transport floor sits above the verbs: only http/, routes/, app.ts and main.ts import it',
    applies: (from) =>
      from.startsWith('origin/') && !TRANSPORT(from) && from !== 'origin/app.ts' && from !== 'origin/main.ts',
    forbids: TRANSPORT,
  },
  {
    why: 'the command line is a transport of its own: nothing imports it',
    applies: (from) => !from.startsWith('origin/cli/'),
    forbids: under('origin/cli'),
  },
  {
    why: 'the layers under the services never import a service or the edge sync',
    applies: BELOW_SERVICES,
    forbids: under('origin/services', 'origin/edge-sync'),
  },
  {
    why: 'a run is admitted, cached, counted and recorded by the run path (origin/services/run/run.ts) alone: a transport only adapts it',
    applies: TRANSPORT,
    forbids: (to) => RUN_PATH_ONLY.includes(to),
  },
  { why: 'drivers produce rows; formats serialize them, not the reverse', applies: under('origin/drivers'), forbids: under('origin/formats') },
  { why: 'shared/ runs on both runtimes and imports only itself', applies: under('shared'), forbids: (to) => !to.startsWith('shared/') },
  { why: 'the edge Worker never reaches into the origin', applies: under('edge'), forbids: under('origin') },
  {
    why: 'the console is a browser app: it imports itself and shared/ (rules it shows as the origin applies them), never the origin or the edge',
    applies: under('console'),
    forbids: (to) => !to.startsWith('console/') && !to.startsWith('shared/'),
  },
];

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

/** The relative imports of one file, as repository paths. */
function importsOf(file: string, text: string): Import[] {
  return [...text.matchAll(SPECIFIER)].map((match) => ({ from: file, to: posix.normalize(posix.join(posix.dirname(file), match[1]!)) }));
}

function violations(imports: Import[]): string[] {
  return imports.flatMap(({ from, to }) =>
    RULES.filter((rule) => rule.applies(from) && rule.forbids(to)).map((rule) => `${from} imports ${to}: ${rule.why}`),
  );
}

function sources(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => relative(ROOT, join(ROOT, folder, name)).split('\\').join('/'));
}

describe('layering', () => {
  const files = ['origin', 'shared', 'edge', 'console'].flatMap(sources);
  const imports = files.flatMap((file) => importsOf(file, readFileSync(join(ROOT, file), 'utf8')));

  it('reads the imports of every source file', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(imports.length).toBeGreaterThan(1000);
    expect(files).toContain('origin/app.ts');
  });

  it('holds: no file imports across a layer it may not reach', () => {
    expect(violations(imports)).toEqual([]);
  });

  it.each([
    ['origin/services/run/prepare.ts', "import type { AppEnv } from '../../http/context.ts';"],
    ['origin/access/usage.ts', "import { respondRun } from '../http/run-response.ts';"],
    ['origin/http/run-response.ts', "import type { HistoryRecorder } from '../services/history/recorder.ts';"],
    ['origin/routes/mcp/call-tools.ts', "import { responseCacheKey } from '../../cache/key.ts';"],
    ['origin/drivers/postgres/driver.ts', "const { csv } = await import('../../formats/csv.ts');"],
    ['origin/services/collections/bundle-import.ts', "import { CLI_ACTOR } from '../../cli/local.ts';"],
    ['origin/cli/local.ts', "import { respondRun } from '../http/run-response.ts';"],
    ['origin/secrets/passwords.ts', "import { ENV_REFERENCE } from '../services/connections/fields.ts';"],
    ['shared/etag.ts', "import { Env } from '../origin/env.ts';"],
    ['edge/gate.ts', "import { inspect } from '../origin/sql/index.ts';"],
    ['console/src/screens/config.ts', "import { gate } from '../../../edge/gate.ts';"],
  ])('fails when %s gains a forbidden import', (file, line) => {
    expect(violations(importsOf(file, line))).toHaveLength(1);
  });

  it('lets the transport import the services, and the services the layers below', () => {
    expect(violations(importsOf('origin/routes/execute-sql.ts', "import { run } from '../services/run/run.ts';"))).toEqual([]);
    expect(violations(importsOf('origin/services/run/prepare.ts', "import { inspect } from '../../sql/index.ts';"))).toEqual([]);
    expect(violations(importsOf('origin/cli/local.ts', "import { importBundle } from '../services/collections/bundle-import.ts';"))).toEqual([]);
  });

  it('MCP tools take their rows from the run, never from an HTTP response built and read back', () => {
    const mcp = sources('origin/routes/mcp').map((file) => [file, readFileSync(join(ROOT, file), 'utf8')] as const);
    expect(mcp.length).toBeGreaterThan(3);
    expect(mcp.filter(([, text]) => /new Response\b|Response\.json\(|\.(text|json|arrayBuffer)\(\)/.test(text)).map(([file]) => file)).toEqual([]);
  });
});
