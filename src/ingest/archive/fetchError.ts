/** A fetch that failed for a reason the user can act on; its message is a sentence naming the URL. */
export class FetchError extends Error {
  override name = 'FetchError';

  /** The HTTP status and body of the answer that failed, when one did (NCSS tells "Request Too Large" by them). */
  constructor(
    message: string,
    readonly status?: number,
    readonly body?: string,
  ) {
    super(message);
  }
}
