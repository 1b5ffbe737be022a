import type { Logger } from './logger.ts';

export interface OutageOptions {
  /** Resolves true once the dependency answers again; never rejects. */
  probe: () => Promise<boolean>;
  intervalMs: number;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** Logged once when the outage starts, with the cause's fields. */
  downMessage: string;
  /** Logged once when the probe first answers. */
  backMessage: string;
}

/**
 * One dependency's outage (Redis, the store): marked down at the first
 * failure and logged once, then probed in the background every
 * `intervalMs` until it answers, and logged once again. Callers read `down`
 * and take their fallback at once instead of waiting on a server that is not
 * there, and the log gets two lines an outage instead of one per request.
 */
export class Outage {
  private isDown = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly options: OutageOptions) {}

  get down(): boolean {
    return this.isDown;
  }

  markDown(cause: object): void {
    if (this.isDown || this.stopped) return;
    this.isDown = true;
    this.options.logger.warn(cause, this.options.downMessage);
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(): void {
    this.timer = setTimeout(() => void this.tryAgain(), this.options.intervalMs);
    this.timer.unref();
  }

  private async tryAgain(): Promise<void> {
    this.timer = null;
    if (this.stopped) return;
    if (!(await this.options.probe())) {
      if (!this.stopped) this.schedule();
      return;
    }
    this.isDown = false;
    this.options.logger.info(this.options.backMessage);
  }
}
