import { DEFAULT_WORKSPACE, holds } from '../../access/administration.ts';
import { canReach } from '../../access/reachability.ts';
import { SluiceError } from '../../errors.ts';
import type { Caller } from '../../access/caller.ts';
import { type RunItem, runItem } from './list.ts';
import type { FeedRun } from '../../observability/run-feed.ts';

/** A run as one caller may see it, or null when it is not theirs to see. */
export type EventView = (row: FeedRun) => RunItem | null;

/**
 * What `GET /events` shows a caller. The server key (or an open server):
 * every run. A named administrator: the runs of the workspaces where they
 * hold `history.read` (ad-hoc runs count as the default workspace's). A
 * scoped key: its own runs (ad-hoc ones included), and other callers' runs of
 * the queries it reaches now, without who ran them, their request id or
 * their error text.
 */
export function eventViewFor(caller: Caller): EventView {
  if (caller.admin) return (row) => runItem(row.run);
  if (caller.via === 'token') {
    const workspaces = [DEFAULT_WORKSPACE, ...Object.keys(caller.administrator?.memberships ?? {})];
    if (!workspaces.some((workspace) => holds(caller, workspace, 'history.read'))) {
      throw new SluiceError('forbidden', 'This needs the history.read capability', { capability: 'history.read' });
    }
    return (row) => (holds(caller, row.workspace ?? DEFAULT_WORKSPACE, 'history.read') ? runItem(row.run) : null);
  }
  if (caller.via === 'key') {
    return (row) => {
      if (row.run.keyName === caller.name) return runItem(row.run);
      if (row.run.query === null || row.workspace === null) return null;
      const target = {
        name: row.run.query,
        collection: row.collection,
        workspace: row.workspace,
        connectionName: row.run.connection,
        connectionWorkspace: row.connectionWorkspace,
      };
      if (!canReach(caller, target)) return null;
      return { ...runItem(row.run), key_name: null, request_id: null, trace_id: null, error: null };
    };
  }
  throw new SluiceError('unauthorized', 'Missing or invalid API key');
}
