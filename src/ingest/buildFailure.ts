/** What to do about a failed data build, from its error message: lines for a person. */
export function buildFailureHints(message: string, outDir: string): string[] {
  if (/ENOSPC|No space left/i.test(message)) return ['The disk is full: free some space, set DATA_DIR to a larger disk, or lower DATA_CITIES.'];
  if (/EACCES|EPERM|EROFS|ENOTDIR/i.test(message)) {
    return [`Cannot create ${outDir}: set DATA_DIR to a folder you can write to (its parent folders are created as needed).`];
  }
  return [];
}
