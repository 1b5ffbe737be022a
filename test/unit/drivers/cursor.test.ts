import { describe, expect, it } from 'vitest';
import { openCursor, readAll, type Outcome, type StatementSource } from '../../../origin/drivers/cursor.ts';
import type { SluiceError } from '../../../origin/errors.ts';
import type { Value } from '../../../origin/values.ts';

/**
 * The shared statement life (origin/drivers/cursor.ts) against a scripted
 * source: a cancel that comes while the source still prepares (its BEGIN, a
 * setting) finds nothing running to cancel; the statement is then never
 * sent, the run fails with the cancel's own error, and the source is told to
 * drop its session. Every driver's start relies on this, so it is proved once here.
 */

/** Prepares until `prepared` is called, then sends the statement (one batch of one row). */
class Scripted implements StatementSource {
  sent = false;
  interrupts = 0;
  finished: [Outcome, boolean] | null = null;
  private release: () => void = () => {};
  private started: () => void = () => {};
  /** Resolves once `start` runs: the source is preparing. */
  readonly preparing = new Promise<void>((resolve) => (this.started = resolve));
  private rows: Value[][] | null = [[1]];

  constructor(private readonly instant = false) {}

  async start(cancelled: AbortSignal) {
    this.started();
    if (!this.instant) await new Promise<void>((resolve) => (this.release = resolve));
    cancelled.throwIfAborted();
    this.sent = true;
    return [{ name: 'one', dbType: 'int', kind: 'integer' as const }];
  }

  prepared(): void {
    this.release();
  }

  async pull() {
    const rows = this.rows;
    this.rows = null;
    return rows;
  }

  interrupt(): void {
    this.interrupts++;
  }

  async finish(outcome: Outcome, interrupted: boolean) {
    this.finished = [outcome, interrupted];
  }
}

const fail = (error: unknown) => error as SluiceError;

async function rejection(promise: Promise<unknown>): Promise<SluiceError> {
  try {
    await promise;
  } catch (error) {
    return error as SluiceError;
  }
  throw new Error('expected a rejection');
}

describe('a cancel before the statement started', () => {
  it('the client abort: nothing is sent, the run fails cancelled, the session is dropped', async () => {
    const source = new Scripted();
    const controller = new AbortController();
    const opening = rejection(openCursor(source, { request: { timeoutMs: 0, signal: controller.signal }, fail }));
    await source.preparing;
    controller.abort();
    source.prepared();
    const error = await opening;
    expect([error.code, error.message, error.extras.detail]).toEqual(['query_failed', 'The query was cancelled because the client went away', 'cancelled']);
    expect(source.sent).toBe(false);
    expect(source.interrupts).toBe(1);
    expect(source.finished).toEqual(['failed', true]);
  });

  it('the time limit: nothing is sent, the run fails with the timeout', async () => {
    const source = new Scripted();
    const opening = rejection(openCursor(source, { request: { timeoutMs: 20, signal: new AbortController().signal }, fail }));
    await source.preparing;
    // The timer fires while the source still prepares.
    await new Promise((resolve) => setTimeout(resolve, 100));
    source.prepared();
    const error = await opening;
    expect([error.code, error.extras.timeout]).toEqual(['timeout', 0.02]);
    expect(source.sent).toBe(false);
    expect(source.finished).toEqual(['failed', true]);
  });

  it('an abort before the run starts nothing and keeps the session', async () => {
    const source = new Scripted(true);
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(openCursor(source, { request: { timeoutMs: 0, signal: controller.signal }, fail }));
    expect(error.extras.detail).toBe('cancelled');
    expect(source.sent).toBe(false);
    expect(source.finished).toEqual(['failed', false]);
  });

  it('with no cancel the statement runs and the session is kept', async () => {
    const source = new Scripted(true);
    const cursor = await openCursor(source, { request: { timeoutMs: 0, signal: new AbortController().signal }, fail });
    expect(await readAll(cursor)).toEqual([[1]]);
    expect([source.sent, source.interrupts, source.finished]).toEqual([true, 0, ['done', false]]);
  });
});
