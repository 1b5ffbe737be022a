import { eq } from 'drizzle-orm';
import { diffFields } from '../../../audit/diff.ts';
import { secretKeyring } from '../../../secrets/keyring.ts';
import { samePassword } from '../../../secrets/passwords.ts';
import { connections } from '../../../store/schema/index.ts';
import { createConnection } from '../../connections/create.ts';
import { deleteConnection } from '../../connections/delete.ts';
import { type ConnectionFields, withDefaults } from '../../connections/fields.ts';
import { updateConnection } from '../../connections/update.ts';
import { maskedDiff, rowFields } from '../../connections/view.ts';
import { type Section, assertInWorkspace, passwordChange, recordCreate, recordUpdate, warnUnsetReference } from '../context.ts';
import type { ConnectionEntry } from '../file.ts';

const withoutPassword = ({ password: _password, ...rest }: ConnectionFields) => rest;

/** `connections`: an entry is the whole connection; a field left out takes the value a new connection gets. */
export const connectionsSection: Section<ConnectionEntry> = {
  kind: 'connections',

  async upsert(deps, ctx, entry, path) {
    warnUnsetReference(ctx, path, entry.password);
    const [current] = await deps.store.db.select().from(connections).where(eq(connections.name, entry.name));
    if (!current) {
      await createConnection(deps, ctx.actor, entry, ctx.workspace);
      return recordCreate(ctx, 'connections', entry.name);
    }
    assertInWorkspace(ctx, 'connections', entry.name, current.workspace);
    const before = rowFields(current);
    const after = withDefaults(entry);
    const fields = maskedDiff(diffFields(withoutPassword(before), withoutPassword(after)));
    const passwordKept = samePassword(secretKeyring(deps.env), before.password, after.password);
    if (Object.keys(fields).length > 0 || !passwordKept) {
      await updateConnection(deps, ctx.actor, entry.name, after, { workspace: ctx.workspace });
    }
    recordUpdate(ctx, 'connections', entry.name, passwordKept ? fields : { ...fields, password: passwordChange(before.password, after.password) });
  },

  async remove(deps, ctx, name) {
    const [current] = await deps.store.db.select({ id: connections.id }).from(connections).where(eq(connections.name, name));
    if (!current) return false;
    await deleteConnection(deps, ctx.actor, name, { reason: `pruned: not in the configuration file ${ctx.sha256}` }, { workspace: ctx.workspace });
    return true;
  },
};
