import type { DownloadEngine } from './download.js';
import { FetchError } from './fetchError.js';
import type { ArchiveFile } from './publisher.js';
import { RetryableError, retryAfterMs, withRetries } from './retries.js';

/**
 * The size of each file whose index gives none, from a HEAD request's Content-Length (the plan's
 * bytes, and the download's size check). A file the server does not have fails here, naming its
 * URL, before anything is downloaded. At most FETCH_CONCURRENCY requests per host, as downloads.
 */
export async function headSizes(files: ArchiveFile[], engine: DownloadEngine, log: (line: string) => void): Promise<void> {
  const todo = files.filter((f) => f.bytes === undefined);
  if (todo.length === 0) return;
  if (todo.length > 50) log(`sizing ${todo.length} files (HEAD requests, ${engine.slots.perHost} at a time): the index gives no sizes`);
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const file = todo[next++]!;
      const bytes = await sizeOf(file.url, engine);
      if (bytes !== undefined) file.bytes = bytes;
    }
  };
  await Promise.all(Array.from({ length: Math.min(todo.length, engine.slots.perHost) }, worker));
}

async function sizeOf(url: string, engine: DownloadEngine): Promise<number | undefined> {
  return withRetries(`HEAD ${url}`, engine.policy, () =>
    engine.slots.run(url, async () => {
      const res = await fetch(url, { method: 'HEAD' });
      if (res.status === 408 || res.status === 429 || res.status >= 500) throw new RetryableError(`HEAD ${url} answered ${res.status}`, retryAfterMs(res.headers.get('retry-after')));
      if (res.status === 404) throw new FetchError(`HEAD ${url} answered 404 Not Found: the publisher's index lists a file its server does not have; leave its model, scenario or years out, or check ARCHIVE_URL_* if a mirror stands in.`);
      if (res.status >= 300) throw new FetchError(`HEAD ${url} answered ${res.status}: the server refuses it (a proxy, or a mirror without that path).`);
      const length = Number(res.headers.get('content-length') ?? NaN);
      return Number.isFinite(length) ? length : undefined;
    }),
  );
}
