/** A build failure the user can fix (bad option, missing source file, full disk); the message says how. */
export class BuildError extends Error {
  override name = 'BuildError';
}
