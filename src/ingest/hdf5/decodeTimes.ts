/** Time spent in each step of reading a dataset's values, for the ingest's benchmark (seconds). */
export interface DecodeTimes {
  /** Reading the chunk index (once per dataset). */
  index: number;
  read: number;
  inflate: number;
  unshuffle: number;
  copy: number;
  /** Chunks decoded (0 for datasets stored unchunked). */
  chunks: number;
  bytesRead: number;
}

export const newDecodeTimes = (): DecodeTimes => ({ index: 0, read: 0, inflate: 0, unshuffle: 0, copy: 0, chunks: 0, bytesRead: 0 });
