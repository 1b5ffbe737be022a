import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps.ts';
import { isEncrypted, secretKeyring } from '../../secrets/keyring.ts';
import { serverSecrets } from '../../store/schema/index.ts';

/** The name of the signing key in `server_secrets`. */
export const LINK_KEY_NAME = 'result_links';

const keys = new WeakMap<AppDeps, Promise<Buffer>>();

/**
 * The key that signs chunk links: made once per store (32 random bytes) and
 * read by every origin on it, so a link made by one is good at another. Kept
 * encrypted under SLUICE_SECRET_KEY when one is set.
 */
export function linkKey(deps: AppDeps): Promise<Buffer> {
  let key = keys.get(deps);
  if (!key) {
    key = loadLinkKey(deps);
    key.catch(() => keys.delete(deps));
    keys.set(deps, key);
  }
  return key;
}

async function loadLinkKey(deps: AppDeps): Promise<Buffer> {
  const keyring = secretKeyring(deps.env);
  const made = randomBytes(32).toString('base64url');
  await deps.store.db
    .insert(serverSecrets)
    .values({ name: LINK_KEY_NAME, value: keyring.primary ? keyring.encrypt(made) : made })
    .onConflictDoNothing();
  // Another origin may have made it first: the stored one is the key.
  const [row] = await deps.store.db.select({ value: serverSecrets.value }).from(serverSecrets).where(eq(serverSecrets.name, LINK_KEY_NAME));
  const stored = row!.value;
  return Buffer.from(isEncrypted(stored) ? keyring.decrypt(stored) : stored, 'base64url');
}

const signatureOf = (key: Buffer, id: string, index: number, expires: number): Buffer =>
  createHmac('sha256', key).update(`${id}\n${index}\n${expires}`).digest();

export function signChunk(key: Buffer, id: string, index: number, expires: number): string {
  return signatureOf(key, id, index, expires).toString('hex');
}

/** Whether `signature` (hex) is the key's for exactly this id, index and expiry: compared in constant time. */
export function chunkSignatureValid(key: Buffer, id: string, index: number, expires: number, signature: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(signature)) return false;
  return timingSafeEqual(Buffer.from(signature, 'hex'), signatureOf(key, id, index, expires));
}

/** A chunk's link on the origin at `base`, good until `expires` (unix seconds). */
export function chunkLink(key: Buffer, base: string, id: string, index: number, expires: number): string {
  const url = new URL(`/results/${encodeURIComponent(id)}/chunks/${index}`, base);
  url.searchParams.set('expires', String(expires));
  url.searchParams.set('signature', signChunk(key, id, index, expires));
  return url.toString();
}
