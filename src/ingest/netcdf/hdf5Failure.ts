/**
 * The sentence for a variable that neither the ingest's own HDF5 reader nor the HDF5 library
 * (h5wasm) could read: which variable, what it uses that the reader does not decode, what the
 * library said, and what to do. stageFile puts the file's name in front.
 */
export function libraryReadFailure(variable: string, unsupported: string | undefined, err: unknown): string {
  const library = (err instanceof Error ? err.message : String(err)).trim() || 'no reason given';
  const what = unsupported ? `uses ${unsupported}, which the ingest's own reader does not read, and ` : '';
  return `variable ${variable} ${what}could not be read by the HDF5 library either (${library}): the file is damaged or stored in a way the ingest does not read; rewrite it with nccopy -k nc4 -d 4 in.nc out.nc and ingest the copy`;
}

/** The sentence for a variable compressed with a filter neither reader has (`filter`: 'filter 32015 (Zstandard)'). */
export function unreadableFilter(variable: string, filter: string): string {
  return (
    `variable ${variable} is compressed with ${filter}, which the ingest cannot decode (its own reader decodes deflate, shuffle and ` +
    `Fletcher-32, and the HDF5 library it carries has no plugins); rewrite the file with deflate where that filter's HDF5 plugin ` +
    `is installed (nccopy -d 4 -s in.nc out.nc) and ingest the copy`
  );
}
