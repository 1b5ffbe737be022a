import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { type Origin, type OriginOptions, startOrigin } from '../harness/origin.ts';

/**
 * The configuration-as-code tests: origins with the server key set (keys can
 * only be made on a server with authentication on), files built in the test
 * and sent as JSON or YAML, and the audit log read back.
 */

export const ADMIN_KEY = 'config-admin-key-0123456789abcdef';

export type Reply = { status: number; headers: Headers; body: any };

/** A folder local-folder destinations may use (SLUICE_EXPORT_DIRS). */
export const exportRoot = () => mkdtemp(join(tmpdir(), 'sluice-config-exports-'));

export function startConfigOrigin(options: OriginOptions & { env?: Record<string, string> } = {}): Promise<Origin> {
  return startOrigin({ ...options, env: { TZ: 'Europe/Paris', SLUICE_API_KEY: ADMIN_KEY, ...options.env } });
}

/** A call with the server key. */
export const admin = (origin: Origin, method: string, path: string, body?: unknown): Promise<Reply> =>
  origin.call(method, path, body, { 'x-api-key': ADMIN_KEY });

/** A secret as `sluice config new-key` makes one, and the SHA-256 a file carries. */
export function newSecret(): { secret: string; sha256: string } {
  const secret = `cfgtest_${randomBytes(16).toString('hex')}`;
  return { secret, sha256: createHash('sha256').update(secret).digest('hex') };
}

export const configFile = (sections: Record<string, any>): Record<string, any> => ({ format: 'sluice-config', format_version: 1, ...sections });

/** POSTs a file to `/api/v1/config/<verb>` as JSON, or as YAML with `yaml: true`. */
export async function sendFile(
  origin: Origin,
  verb: 'apply' | 'diff',
  file: unknown,
  { prune = false, dryRun = false, yaml = false, base = '' }: { prune?: boolean; dryRun?: boolean; yaml?: boolean; base?: string } = {},
): Promise<Reply> {
  const query = new URLSearchParams({ ...(prune ? { prune: 'true' } : {}), ...(dryRun ? { dry_run: 'true' } : {}) }).toString();
  const res = await origin.fetch(`${base}/api/v1/config/${verb}${query ? `?${query}` : ''}`, {
    method: 'POST',
    headers: { 'x-api-key': ADMIN_KEY, 'content-type': yaml ? 'application/yaml' : 'application/json' },
    body: yaml ? stringify(file) : JSON.stringify(file),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** Every audit entry, oldest first. */
export async function auditEntries(origin: Origin): Promise<Array<{ seq: number; action: string; actor: string; target: string; changes: Record<string, any> }>> {
  const res = await admin(origin, 'GET', '/api/v1/audit?limit=1000');
  return [...res.body.items].reverse();
}

export async function auditIntact(origin: Origin): Promise<boolean> {
  const res = await admin(origin, 'GET', '/api/v1/audit/verify');
  return res.status === 200 && res.body.intact === true;
}
