import fs from 'node:fs';
import type { Downloaded } from './download.js';
import type { ArchiveFile, Publisher } from './publisher.js';

/** What a fetch has done so far, printed at most once a second (and at the end) on stderr. */
export class FetchProgress {
  private readonly started = Date.now();
  private received = 0;
  private filesDone = 0;
  private bytesDone = 0;
  private values = 0;
  private lastLine = 0;
  /** When the last file was staged: the rate is of downloading and staging, not of the reduce after. */
  private ended: number | undefined;

  constructor(
    private readonly files: number,
    private readonly bytes: number,
    private readonly log: (line: string) => void,
  ) {}

  /** Bytes that arrived over the network this run (the rate counts these only). */
  onBytes = (n: number) => {
    this.received += n;
    this.bytesDone += n;
    this.maybeLog();
  };

  /** A file already whole on disk or staged by an earlier run: done, without a byte received. */
  skip(bytes: number) {
    this.filesDone++;
    this.bytesDone += bytes;
  }

  staged(valuesStored: number) {
    this.filesDone++;
    if (this.filesDone === this.files) this.ended = Date.now();
    this.values += valuesStored;
    this.maybeLog(true);
  }

  get megabytesPerSecond(): number {
    return this.received / 1e6 / Math.max(((this.ended ?? Date.now()) - this.started) / 1000, 1e-3);
  }

  line(): string {
    const rate = this.megabytesPerSecond;
    const left = Math.max(0, this.bytes - this.bytesDone) / 1e6;
    const eta = rate > 0 && this.received > 0 ? `ETA ${duration(left / rate)}` : 'ETA unknown until bytes arrive';
    const pct = this.bytes > 0 ? ` (${Math.min(100, (100 * this.bytesDone) / this.bytes).toFixed(0)}%)` : '';
    return (
      `fetch: ${this.filesDone}/${this.files} files staged, ${mb(this.bytesDone)} of ${mb(this.bytes)} MB${pct}, ` +
      `${rate.toPrecision(3)} MB/s, ${this.values.toLocaleString('en-US')} values staged, ${eta}`
    );
  }

  private maybeLog(force = false) {
    const now = Date.now();
    if (!force && now - this.lastLine < 1000) return;
    this.lastLine = now;
    this.log(this.line());
  }
}

const mb = (bytes: number) => (bytes / 1e6).toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

export function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return 'unknown';
  if (seconds < 90) return `${Math.ceil(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/**
 * Downloads the files a map step is about to read, a few ahead of it: at most `window` are on disk
 * or under way at once, and each is deleted once its values are staged (unless `keep`), so a
 * fetch of a region of a 34 TB archive never needs more than a few files' room.
 */
export class DownloadsAhead {
  private order: string[] = [];
  private next = 0;
  private held = 0;
  private stopped = false;
  private readonly pending = new Map<string, Promise<Downloaded>>();
  /** What was downloaded (or found whole) this run, by URL: the build's record of its sources. */
  readonly done = new Map<string, Downloaded>();

  constructor(
    private readonly files: Map<string, ArchiveFile>,
    private readonly publisher: Publisher,
    private readonly dir: string,
    private readonly window: number,
    private readonly keep: boolean,
  ) {}

  /** The URLs the map step will read, in its order: downloads start. */
  start(order: string[]) {
    this.order = order;
    this.fill();
  }

  /** File `url`'s local copy, whole and checked. */
  local(url: string): Promise<string> {
    const p = this.pending.get(url);
    if (!p) throw new Error(`${url} was not started: the map step asked for a file out of its order`);
    return p.then((d) => d.file);
  }

  /** Its values are staged: the local copy may go, and the next download start. */
  staged(url: string) {
    const d = this.done.get(url);
    if (d && !this.keep) fs.rmSync(d.file, { force: true });
    this.pending.delete(url);
    this.held--;
    this.fill();
  }

  /** No more downloads start (the engine's signal ends those under way). */
  stop() {
    this.stopped = true;
  }

  /** Resolves once no download is under way (each done, failed or stopped). */
  async settled(): Promise<void> {
    await Promise.allSettled(this.pending.values());
  }

  private fill() {
    while (!this.stopped && this.held < this.window && this.next < this.order.length) {
      const url = this.order[this.next++]!;
      const file = this.files.get(url)!;
      this.held++;
      const p = this.publisher.fetch(file, this.dir).then((d) => {
        this.done.set(url, d);
        return d;
      });
      // Awaited by local(); a failure of a download nobody awaits yet must not end the process.
      p.catch(() => {});
      this.pending.set(url, p);
    }
  }
}
