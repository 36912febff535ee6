/**
 * At most `perHost` requests at once to each host: the publishers' servers (one NCCS THREDDS, one
 * UCSD web server, one S3 bucket) are shared with everyone else who downloads from them.
 */
export class HostSlots {
  private readonly busy = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(readonly perHost: number) {}

  async run<T>(url: string, task: () => Promise<T>): Promise<T> {
    const host = new URL(url).host;
    if ((this.busy.get(host) ?? 0) >= this.perHost) {
      await new Promise<void>((resolve) => {
        const queue = this.waiting.get(host) ?? [];
        queue.push(resolve);
        this.waiting.set(host, queue);
      });
    } else {
      this.busy.set(host, (this.busy.get(host) ?? 0) + 1);
    }
    try {
      return await task();
    } finally {
      // The slot passes straight to the next in line, so the count stays as it is.
      const next = this.waiting.get(host)?.shift();
      if (next) next();
      else this.busy.set(host, this.busy.get(host)! - 1);
    }
  }

  /** Requests under way to a host now (for tests and progress). */
  inFlight(host: string): number {
    return this.busy.get(host) ?? 0;
  }
}
