/**
 * Installs and removals on one origin take turns: each is several
 * transactions (so that an interrupted install is `partial`), and two at
 * once would race to make the same objects. Origins sharing a store are
 * kept apart by the objects' unique names instead: the loser of such a race
 * answers the verb's 409 and leaves the state `partial`, which the next
 * install completes.
 */
let last: Promise<unknown> = Promise.resolve();

export function inTurn<T>(work: () => Promise<T>): Promise<T> {
  const run = last.then(work, work);
  last = run.catch(() => undefined);
  return run;
}
