// Work a write commits now and finishes right after it answers: the summariser folding stored
// passes into their chains (db/ingest/summaries.ts). A request after a quiet spell runs at
// once; under a stream of requests, runs start at most once per interval, each taking all
// that was asked since the last, so a burst of writes costs a few runs, not one each. Readers
// of the same process wait for the runs that cover every request made before they asked, and
// a waiting reader starts the next run at once.

type Waiter = { target: number; resolve: () => void };

export class FollowUp {
  private requested = 0;
  private done = 0;
  private running: Promise<void> | null = null;
  private job: (() => Promise<void>) | null = null;
  private waiters: Waiter[] = [];
  private lastStart = Number.NEGATIVE_INFINITY;
  private wake: (() => void) | null = null;

  constructor(
    private readonly onError: (error: unknown) => void,
    /** Least time between the starts of two runs, unless a reader waits. */
    private readonly intervalMs = 0,
  ) {}

  /** Asks for a run of `job` after every write committed so far; never waits for it. */
  request(job: () => Promise<void>): void {
    this.requested++;
    this.job = job;
    this.running ??= this.loop();
  }

  /**
   * Resolves once a run that began after every request made before this call has finished,
   * or has failed (the work then stays queued for the next run, and a reader sees what is
   * folded so far rather than wait on a broken database).
   */
  settled(): Promise<void> {
    if (this.done >= this.requested) return Promise.resolve();
    const target = this.requested;
    const settled = new Promise<void>((resolve) => this.waiters.push({ target, resolve }));
    this.wake?.();
    return settled;
  }

  private async loop(): Promise<void> {
    try {
      while (this.done < this.requested && this.job) {
        const wait = this.lastStart + this.intervalMs - performance.now();
        if (wait > 0 && this.waiters.length === 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, wait);
            this.wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          this.wake = null;
        }
        this.lastStart = performance.now();
        const upto = this.requested;
        try {
          await this.job();
          this.done = upto;
          this.release((w) => w.target <= upto);
        } catch (error) {
          this.onError(error);
          // What was asked so far is answered, though not done: the next request runs it again.
          this.done = upto;
          this.release(() => true);
        }
      }
    } finally {
      this.running = null;
    }
  }

  private release(which: (w: Waiter) => boolean): void {
    const keep: Waiter[] = [];
    for (const w of this.waiters) {
      if (which(w)) w.resolve();
      else keep.push(w);
    }
    this.waiters = keep;
  }
}
