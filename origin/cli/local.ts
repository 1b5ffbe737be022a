import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { NUL_PROBLEM, nulPaths } from '../../shared/nul.ts';
import type { Caller } from '../access/caller.ts';
import { createSignInVerifier } from '../access/jwt.ts';
import { parseEnv } from '../env.ts';
import { SluiceError } from '../errors.ts';
import { createLogger } from '../observability/logger.ts';
import { EXAMPLES_CONNECTION, ensureExamples } from '../services/examples/ensure.ts';
import { openDeps } from '../open-deps.ts';
import { snapshotBundle } from '../services/collections/bundle-snapshot.ts';
import { importBundle } from '../services/collections/bundle-import.ts';
import { collectionPostman } from '../services/collections/postman.ts';
import { applyConfig, diffConfig, snapshotConfig, fileSha256, readConfigFile } from '../services/config/index.ts';
import { DataDirLocked } from '../store/dir-lock.ts';
import type { Backend } from './backend.ts';
import type { Output } from './output.ts';

/**
 * The actor of changes made on the store directly: whoever runs the command
 * holds the store itself, as the server key's holder holds the server.
 */
export const CLI_ACTOR: Caller = { name: 'cli', admin: true, via: 'break-glass' };

const problem = (message: string, hint: string) => new SluiceError('invalid_request', message, { hint });

/** As the HTTP transport does (http/body.ts): no text the store could keep holds a NUL. */
function refuseNul(document: unknown): unknown {
  const paths = nulPaths(document);
  if (paths.length === 0) return document;
  // `queries[0].name`, as the file's other problems are named.
  const errors = Object.fromEntries(paths.map((path) => [path.replace(/\.(\d+)(?=\.|$)/g, '[$1]'), NUL_PROBLEM]));
  throw new SluiceError('invalid_request', 'The file holds a NUL character', { errors });
}

/** The address a Postman file made here calls: where an origin on this environment listens. */
function listeningUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/**
 * The store itself, opened as an origin opens it (origin/open-deps.ts: the
 * same SLUICE_* variables, audit key, secret key), with the verbs run in
 * this process. The embedded store takes one process at a time: while an
 * origin holds it, the command says so and points at `--server`. Commands
 * that only read refuse to make a store where there is none; `create`
 * (apply, import) makes one, and says so.
 */
export async function localBackend(out: Output, { create }: { create: boolean }): Promise<Backend> {
  let env;
  try {
    env = parseEnv(process.env);
  } catch (err) {
    throw problem((err as Error).message, 'Fix the variables named above: local mode reads the same SLUICE_* variables as the origin.');
  }
  const dataDir = resolve(env.SLUICE_DATA_DIR);
  const where = env.SLUICE_DATABASE_URL ? 'the PostgreSQL store of SLUICE_DATABASE_URL' : `the store in ${dataDir}`;
  const made = !env.SLUICE_DATABASE_URL && !existsSync(join(dataDir, 'store', 'PG_VERSION'));
  if (made) {
    if (!create) {
      throw problem(
        `there is no Sluice store in ${dataDir}`,
        'Set SLUICE_DATA_DIR to the data folder of the origin (or SLUICE_DATABASE_URL to its PostgreSQL store), or talk to a running origin with --server URL.',
      );
    }
    out.progress(`No store in ${dataDir} yet: making a new one (an origin started with SLUICE_DATA_DIR=${dataDir} will use it).`);
  }
  out.progress(`Opening ${where}…`);
  // Warnings (stored secrets, audit key) on standard error; standard output is the command's result.
  const logger = createLogger({ SLUICE_LOG_LEVEL: 'warn', ...process.env }, { dest: 2 });
  // Commands run no saved query, so they verify no sign-in token: none of the JWKS settings is read.
  const signIn = await createSignInVerifier({ ...env, SLUICE_JWT_SECRET: undefined, SLUICE_JWT_JWKS: undefined }, logger);
  let opened;
  try {
    opened = await openDeps(env, logger, { signIn, serving: false });
  } catch (err) {
    if (!(err instanceof DataDirLocked)) throw err;
    throw problem(
      `${err.message.split('. ')[0]}.`,
      'A running origin holds its embedded store: act through it with --server http://HOST:PORT (and SLUICE_CLI_API_KEY), or stop it first.',
    );
  }
  const { deps } = opened;
  // A store made here starts as an origin's first start would: with the examples connection, so a file may name it.
  if (made && env.SLUICE_EXAMPLES) {
    out.progress(`Loading the examples connection "${EXAMPLES_CONNECTION}", as an origin's first start does (SLUICE_EXAMPLES=false leaves it out).`);
    await ensureExamples(deps);
  }

  return {
    where,
    snapshotBundle: (collection) => snapshotBundle(deps, collection),
    postmanFile: (collection) => collectionPostman(deps, collection, listeningUrl(env.SLUICE_HOST, env.SLUICE_PORT)),
    importBundle: (file, options) => importBundle(deps, CLI_ACTOR, refuseNul(file.document), { ...options, workspace: 'default' }),
    snapshotConfig: (options) => snapshotConfig(deps, options),
    // Known by the SHA-256 of its bytes, as when sent to a server.
    diffConfig: async (file, { prune }) => {
      const read = await readConfigFile(file.bytes, file.syntax);
      return diffConfig(deps, CLI_ACTOR, read.file, { prune, sha256: fileSha256(file.bytes), read });
    },
    applyConfig: async (file, { prune, dryRun }) => {
      const read = await readConfigFile(file.bytes, file.syntax);
      return applyConfig(deps, CLI_ACTOR, read.file, { prune, dryRun, sha256: fileSha256(file.bytes), read });
    },
    close: () => opened.close(),
  };
}
