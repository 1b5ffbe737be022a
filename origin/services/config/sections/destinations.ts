import { eq } from 'drizzle-orm';
import { diffFields } from '../../../audit/diff.ts';
import { secretKeyring } from '../../../secrets/keyring.ts';
import { samePassword } from '../../../secrets/passwords.ts';
import { destinations } from '../../../store/schema/index.ts';
import { createDestination } from '../../destinations/create.ts';
import { deleteDestination } from '../../destinations/delete.ts';
import { type DestinationFields, withDefaults } from '../../destinations/fields.ts';
import { updateDestination } from '../../destinations/update.ts';
import { rowFields } from '../../destinations/view.ts';
import { type Section, assertInWorkspace, passwordChange, recordCreate, recordUpdate, warnUnsetReference } from '../context.ts';
import type { DestinationEntry } from '../file.ts';

const withoutPassword = ({ password: _password, ...rest }: DestinationFields) => rest;

/** `destinations`: an entry is the whole destination; a field left out takes the value a new destination gets. */
export const destinationsSection: Section<DestinationEntry> = {
  kind: 'destinations',

  async upsert(deps, ctx, entry, path) {
    warnUnsetReference(ctx, path, entry.password);
    const [current] = await deps.store.db.select().from(destinations).where(eq(destinations.name, entry.name));
    if (!current) {
      await createDestination(deps, ctx.actor, entry, ctx.workspace);
      return recordCreate(ctx, 'destinations', entry.name);
    }
    assertInWorkspace(ctx, 'destinations', entry.name, current.workspace);
    const before = rowFields(current);
    const after = withDefaults(entry);
    const fields = diffFields(withoutPassword(before), withoutPassword(after));
    const passwordKept = samePassword(secretKeyring(deps.env), before.password, after.password);
    if (Object.keys(fields).length > 0 || !passwordKept) {
      await updateDestination(deps, ctx.actor, entry.name, after, { workspace: ctx.workspace });
    }
    recordUpdate(ctx, 'destinations', entry.name, passwordKept ? fields : { ...fields, password: passwordChange(before.password, after.password) });
  },

  async remove(deps, ctx, name) {
    const [current] = await deps.store.db.select({ id: destinations.id }).from(destinations).where(eq(destinations.name, name));
    if (!current) return false;
    await deleteDestination(deps, ctx.actor, name, { workspace: ctx.workspace });
    return true;
  },
};
