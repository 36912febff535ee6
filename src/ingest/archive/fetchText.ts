import type { DownloadEngine } from './download.js';
import { checkStatus, RetryableError, withRetries } from './retries.js';

/**
 * A small document of the publisher (an index, a listing page), with the download's retries and
 * host limit. A 404 resolves to undefined when `missingOk` (an index the publisher may not have).
 */
export async function fetchText(url: string, engine: DownloadEngine, missingOk = false): Promise<string | undefined> {
  return withRetries(`GET ${url}`, engine.policy, () =>
    engine.slots.run(url, async () => {
      const res = await fetch(url);
      let text: string;
      try {
        text = await res.text();
      } catch (err) {
        throw new RetryableError(`the connection was cut while reading the answer (${err instanceof Error ? err.message : String(err)})`);
      }
      if (res.status === 404 && missingOk) return undefined;
      checkStatus(res, url, text);
      return text;
    }),
  );
}
