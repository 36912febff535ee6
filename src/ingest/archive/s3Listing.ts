import type { DownloadEngine } from './download.js';
import { fetchText } from './fetchText.js';
import { FetchError } from './fetchError.js';

export interface S3Object {
  key: string;
  size: number;
}

/**
 * Every object under `prefix` of a public S3 bucket, by ListObjectsV2 (`?list-type=2`), page by
 * page (at most 1,000 keys each, `continuation-token` to the next), without credentials. The
 * ETag is not read: for a multipart upload it is no md5 of the bytes.
 */
export async function listObjects(bucketUrl: string, prefix: string, engine: DownloadEngine): Promise<S3Object[]> {
  const out: S3Object[] = [];
  let token: string | undefined;
  do {
    const query = new URLSearchParams({ 'list-type': '2', prefix, 'max-keys': '1000' });
    if (token) query.set('continuation-token', token);
    const url = `${bucketUrl}/?${query}`;
    const xml = (await fetchText(url, engine))!;
    if (!/<ListBucketResult[\s>]/.test(xml)) throw new FetchError(`GET ${url} did not answer an S3 listing (ListBucketResult): is ARCHIVE_URL_* an S3 bucket's address?`);
    for (const m of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
      const key = tag(m[1]!, 'Key');
      const size = tag(m[1]!, 'Size');
      if (key !== undefined) out.push({ key, size: Number(size ?? NaN) });
    }
    token = tag(xml, 'IsTruncated') === 'true' ? tag(xml, 'NextContinuationToken') : undefined;
    if (tag(xml, 'IsTruncated') === 'true' && !token) throw new FetchError(`GET ${url}: the listing says it is truncated but gives no NextContinuationToken`);
  } while (token);
  return out;
}

function tag(xml: string, name: string): string | undefined {
  const m = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml);
  return m ? unescapeXml(m[1]!) : undefined;
}

const unescapeXml = (s: string) =>
  s.replace(/&(lt|gt|quot|apos|amp|#\d+|#x[0-9a-f]+);/gi, (_, e: string) =>
    e === 'lt' ? '<' : e === 'gt' ? '>' : e === 'quot' ? '"' : e === 'apos' ? "'" : e === 'amp' ? '&' : String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1))),
  );
