import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import type { ApplyContext, Section } from './context.ts';
import type { ConfigProblem } from './problems.ts';

/** New objects per `Section.createAll`: a batch's statements hold the event loop for a few milliseconds on the embedded store. */
const CREATES_PER_BATCH = 100;

/** Runs one entry's step in a savepoint of its own, its refusal becoming the entry's problems. */
export type Attempt = (path: string, step: (stepDeps: AppDeps) => Promise<void>) => Promise<void>;

/**
 * A section's entries found `absent`, made `CREATES_PER_BATCH` at a time
 * through `createAll` in a savepoint of their own. A batch refused as a
 * whole (a name taken meanwhile by another caller) is made again one entry
 * at a time, so that each problem is found at its place.
 */
export class BatchedCreates {
  private pending: Array<{ entry: { name: string }; path: string }> = [];

  constructor(
    private readonly section: Section<{ name: string }>,
    private readonly ctx: ApplyContext,
    private readonly savepoint: <R>(step: (stepDeps: AppDeps) => Promise<R>) => Promise<R>,
    private readonly attempt: Attempt,
    private readonly problems: ConfigProblem[],
    private readonly between: () => Promise<void>,
  ) {}

  async add(entry: { name: string }, path: string): Promise<void> {
    this.pending.push({ entry, path });
    if (this.pending.length >= CREATES_PER_BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    try {
      this.problems.push(...(await this.savepoint((d) => this.section.createAll!(d, this.ctx, batch, this.between))));
    } catch (err) {
      if (!(err instanceof SluiceError)) throw err;
      for (const { entry, path } of batch) await this.attempt(path, (d) => this.section.upsert(d, this.ctx, entry, path));
    }
  }
}
