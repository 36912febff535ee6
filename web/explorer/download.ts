/** Saves a blob under a file name through a temporary link (the token-bearing fetch cannot be a plain link). */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The file name of a Content-Disposition header, if it gives one. */
export function dispositionFilename(header: string | null): string | undefined {
  const m = header ? /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(header) : null;
  return m ? decodeURIComponent(m[1]!) : undefined;
}
