/** A fetch that failed for a reason the user can act on; its message is a sentence naming the URL. */
export class FetchError extends Error {
  override name = 'FetchError';
}
