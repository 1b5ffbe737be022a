import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { mkdir } from 'node:fs/promises';
import type { Env } from '../../env.ts';
import type { AuditEntryView } from '../view.ts';

/**
 * Where audit entries are delivered. `send` resolves only once the output
 * has them (a file written and synced, a webhook's 2xx), so progress is
 * recorded after: delivery is at least once, in seq order. Errors never
 * carry the webhook URL, which may hold a credential.
 */
export interface AuditOutput {
  /** `file` or `webhook`: the progress row's name. */
  name: string;
  /** Where it delivers, as reports show it (no credentials). */
  target: string;
  send(entries: AuditEntryView[]): Promise<void>;
}

/** Appends one JSON object per line to `path` and syncs it to disk. */
export function fileOutput(path: string): AuditOutput {
  return {
    name: 'file',
    target: path,
    async send(entries) {
      await mkdir(dirname(path), { recursive: true });
      const handle = await open(path, 'a');
      try {
        await handle.write(entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
        await handle.datasync();
      } finally {
        await handle.close();
      }
    },
  };
}

const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * The URL as reports show it: scheme, host and port only. A webhook's path or
 * query often is its credential (chat and incident services put the token
 * there), so both are elided, as are a user and password.
 */
export function displayUrl(url: string): string {
  const parsed = new URL(url);
  const elided = parsed.pathname !== '/' || parsed.search !== '' ? '/…' : '/';
  return `${parsed.protocol}//${parsed.host}${elided}`;
}

/**
 * POSTs `{"entries": [...]}` as JSON; anything but a 2xx within 10 s is a
 * failure. A user and password in the URL are sent as Basic authorization
 * (fetch refuses URLs that carry them).
 */
export function webhookOutput(url: string, version: string): AuditOutput {
  const parsed = new URL(url);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': `sluice/${version}` };
  if (parsed.username || parsed.password) {
    const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    parsed.username = '';
    parsed.password = '';
  }
  const endpoint = parsed.toString();
  return {
    name: 'webhook',
    target: displayUrl(url),
    async send(entries) {
      let response: Response;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers,
          body: JSON.stringify({ entries }),
          signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
        });
      } catch (err) {
        throw new Error(`webhook request failed: ${reason(err)}`);
      }
      await response.body?.cancel();
      if (!response.ok) throw new Error(`webhook answered HTTP ${response.status}`);
    },
  };
}

/** A network failure's cause (ECONNREFUSED, a timeout), without the URL that fetch may quote. */
function reason(err: unknown): string {
  const error = err as { name?: string; cause?: { code?: string } };
  if (error.name === 'TimeoutError') return `no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s`;
  return error.cause?.code ?? error.name ?? 'unknown error';
}

/** The outputs this origin's environment configures. */
export function configuredOutputs(env: Pick<Env, 'SLUICE_AUDIT_FILE' | 'SLUICE_AUDIT_WEBHOOK_URL'>, version: string): AuditOutput[] {
  const outputs: AuditOutput[] = [];
  if (env.SLUICE_AUDIT_FILE) outputs.push(fileOutput(env.SLUICE_AUDIT_FILE));
  if (env.SLUICE_AUDIT_WEBHOOK_URL) outputs.push(webhookOutput(env.SLUICE_AUDIT_WEBHOOK_URL, version));
  return outputs;
}
