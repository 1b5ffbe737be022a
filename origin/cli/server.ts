import type { ErrorCode } from '../../shared/errors.ts';
import { SluiceError } from '../errors.ts';
import type { BundleSnapshot } from '../services/collections/bundle-file.ts';
import type { ImportReport } from '../services/collections/bundle-import.ts';
import type { PostmanCollection } from '../services/collections/postman-file.ts';
import type { ConfigFile, ConfigPlan } from '../services/config/index.ts';
import type { Backend } from './backend.ts';
import type { InputFile } from './files.ts';

/** The variable the key is read from: a key is never an argument (it would sit in shell history and `ps`). */
export const KEY_VARIABLE = 'SLUICE_CLI_API_KEY';

const problem = (message: string, hint: string) => new SluiceError('invalid_request', message, { hint });

/** `--server URL`: the origin's (or the edge's) base address, checked before anything is sent. */
export function serverUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw problem(`--server ${JSON.stringify(text)} is not a URL`, 'Give the address the origin listens on, e.g. --server http://127.0.0.1:8080');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw problem(`--server ${JSON.stringify(text)} must be an http:// or https:// URL`, 'Give the address the origin listens on, e.g. --server http://127.0.0.1:8080');
  }
  if (url.username || url.password) {
    throw problem('--server must not carry a user or password', `Put the key in ${KEY_VARIABLE} instead.`);
  }
  return url.href.replace(/\/+$/, '');
}

interface Request {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | undefined>;
  file?: InputFile;
}

/**
 * A running origin over HTTP, as the Management API: the key from
 * SLUICE_CLI_API_KEY in `X-API-Key` (the server key or an administrator
 * token), files sent as their own bytes (YAML as `application/yaml`), error
 * answers turned back into the `SluiceError` the server threw.
 */
export function serverBackend(base: string, key: string | undefined): Backend {
  if (!key) {
    throw problem(
      `--server needs an API key, and ${KEY_VARIABLE} is not set`,
      `Set ${KEY_VARIABLE} to the server key (SLUICE_API_KEY) or an administrator token (slc_adm_...); it is never taken as an argument.`,
    );
  }

  async function call<T>({ method, path, query = {}, file }: Request): Promise<T> {
    const url = new URL(base + path);
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, value);
    const headers: Record<string, string> = { 'x-api-key': key!, accept: 'application/json' };
    if (file) headers['content-type'] = file.syntax === 'yaml' ? 'application/yaml' : 'application/json';
    let res: Response;
    try {
      res = await fetch(url, { method, headers, body: file ? new Uint8Array(file.bytes) : undefined });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw problem(`cannot reach ${base}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, 'Check --server (the origin\'s address, e.g. http://127.0.0.1:8080) and that the origin is running.');
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw problem(`${base} answered ${method} ${url.pathname} with ${res.status} and a body that is not JSON`, 'Check that --server names a Sluice origin (or its edge), not another service.');
    }
    if (res.ok) return body as T;
    const { error, code, ...extras } = body as { error?: string; code?: string };
    throw new SluiceError((code ?? 'internal_error') as ErrorCode, error ?? `${res.status} ${res.statusText}`, extras);
  }

  return {
    where: base,
    snapshotBundle: (collection) => call<BundleSnapshot>({ method: 'GET', path: `/api/v1/collections/${encodeURIComponent(collection)}/bundle` }),
    postmanFile: (collection) => call<PostmanCollection>({ method: 'GET', path: `/api/v1/collections/${encodeURIComponent(collection)}/postman` }),
    importBundle: (file, options) =>
      call<ImportReport>({
        method: 'POST',
        path: '/api/v1/collections/import',
        query: { dry_run: options.dryRun ? 'true' : undefined, on_conflict: options.onConflict, collection: options.collection },
        file,
      }),
    // A workspace's objects are the snapshot of a call made for that workspace.
    snapshotConfig: ({ kinds, workspace, examples }) =>
      call<ConfigFile>({
        method: 'GET',
        path: `${workspace === undefined ? '' : `/w/${encodeURIComponent(workspace)}`}/api/v1/config/export`,
        query: { kinds: kinds?.join(','), examples: examples ? 'true' : undefined },
      }),
    diffConfig: (file, { prune }) => call<ConfigPlan>({ method: 'POST', path: '/api/v1/config/diff', query: { prune: prune ? 'true' : undefined }, file }),
    applyConfig: (file, { prune, dryRun }) =>
      call<ConfigPlan>({
        method: 'POST',
        path: '/api/v1/config/apply',
        query: { prune: prune ? 'true' : undefined, dry_run: dryRun ? 'true' : undefined },
        file,
      }),
    close: async () => {},
  };
}
