/** An ingest failure the user can fix (unreadable file, unknown model, units, grid); the message names the file. */
export class IngestError extends Error {
  override name = 'IngestError';
}
