import { holds, isAdministrator } from '../../access/administration.ts';
import type { Capability } from '../../access/capabilities.ts';
import { SluiceError } from '../../errors.ts';
import type { Caller } from '../../access/caller.ts';

/** An area of the Management API: `<area>.read` is a capability (`queries`, `audit`, ...). */
export type CapabilityArea = Capability extends infer C ? (C extends `${infer A}.read` ? A : never) : never;

export const scopedKeyForbidden = () => new SluiceError('forbidden', 'Scoped keys cannot use the Management API');

/** A scoped key never reaches `/api/v1`; an anonymous caller never gets this far (401 before). */
export function assertAdministrator(caller: Caller): void {
  if (caller.via === 'key') throw scopedKeyForbidden();
  if (!isAdministrator(caller)) throw new SluiceError('forbidden', 'Only administrators may use the Management API');
}

/** 403 `forbidden` naming the capability, unless the caller holds it in the acting workspace. */
export function assertCapability(caller: Caller, workspace: string, capability: Capability): void {
  assertAdministrator(caller);
  if (!holds(caller, workspace, capability)) {
    throw new SluiceError('forbidden', `This needs the ${capability} capability`, { capability });
  }
}
