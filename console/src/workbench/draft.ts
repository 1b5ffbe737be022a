import type { Rules } from '../params-editor.ts';

/** A statement handed from the workbench to the New query form ("Save as query"). */
export interface Draft {
  sql: string;
  connection_name: string;
  parameters: Record<string, Rules>;
}

// Held in memory for the one navigation: the form takes it once, a reload starts empty.
let pending: Draft | null = null;

export function offerDraft(draft: Draft): void {
  pending = draft;
}

export function takeDraft(): Draft | null {
  const draft = pending;
  pending = null;
  return draft;
}
