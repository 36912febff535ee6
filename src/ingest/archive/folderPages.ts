import type { DownloadEngine } from './download.js';
import { fetchText } from './fetchText.js';
import { FetchError } from './fetchError.js';

/** An entry of a web server's folder page: a sub-folder (its name without the slash) or a file. */
export interface FolderEntry {
  name: string;
  folder: boolean;
}

/**
 * The entries of a folder page as Apache's mod_autoindex writes it ("Index of /...", a table or a
 * <pre> of links; nginx's autoindex is alike): every relative link below the folder. The sort links
 * (`?C=N;O=D`), the parent folder and absolute links are not entries. Undefined when the server
 * answers 404 (no such folder).
 */
export async function readFolder(url: string, engine: DownloadEngine): Promise<FolderEntry[] | undefined> {
  const page = await fetchText(url, engine, true);
  if (page === undefined) return undefined;
  if (!/<title>\s*Index of /i.test(page)) throw new FetchError(`GET ${url} did not answer a folder page ("Index of ..."): is ARCHIVE_URL_LOCA2 the address of the publisher's web folders?`);
  const out = new Map<string, FolderEntry>();
  for (const m of page.matchAll(/<a\s[^>]*?href\s*=\s*"([^"]*)"/gi)) {
    const href = decodeURIComponent(m[1]!.replace(/&amp;/g, '&'));
    if (href === '' || /^([a-z][a-z0-9+.-]*:|\/|\?|#|\.\.?\/?$|\.\.\/)/i.test(href)) continue;
    const folder = href.endsWith('/');
    const name = href.replace(/^\.\//, '').replace(/\/$/, '');
    if (name.includes('/')) continue;
    out.set(name, { name, folder });
  }
  return [...out.values()];
}
