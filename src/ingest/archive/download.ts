import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { HostSlots } from './hostSlots.js';
import { notNetcdf } from './netcdfMagic.js';
import { FetchError } from './fetchError.js';
import { checkStatus, RetryableError, withRetries, type RetryPolicy } from './retries.js';

export interface DownloadEngine {
  slots: HostSlots;
  policy: RetryPolicy;
  /** Bytes received, as they arrive (progress). */
  onBytes?: (n: number) => void;
  /** A connection silent this long is cut and tried again (default 2 minutes). */
  idleMs?: number;
  /** Aborted when the fetch stops (another file failed): downloads under way end, their .part kept for a resume. */
  signal?: AbortSignal;
}

/** The download stopped because the fetch did, not for a fault of its own. */
export class StoppedError extends Error {}

export interface Downloaded {
  file: string;
  bytes: number;
  md5: string;
  /** Bytes a previous, interrupted attempt or run had already written (resumed with Range). */
  resumedFrom: number;
  /** Whether the md5 was checked against the publisher's. */
  checked: boolean;
}

/**
 * Downloads `url` to `dest`: into `dest.part`, resumed with an HTTP Range request from what an
 * earlier attempt left there, then checked (its size, NetCDF's first bytes, the publisher's md5
 * when given) and renamed to `dest`. A file already at `dest` is whole: it was checked before its
 * rename. A damaged, short or non-NetCDF body is deleted and fetched again, as are connection
 * errors, 408, 429 and 5xx (policy); 403 and 404 fail at once naming the URL.
 */
export async function download(url: string, dest: string, expect: { bytes?: number; md5?: string }, engine: DownloadEngine): Promise<Downloaded> {
  if (fs.existsSync(dest)) {
    // Kept (KEEP_DOWNLOADS) or left by a killed run after its checks; fetched again if the publisher's copy has changed since.
    const [md5, bytes] = [await md5Of(dest), fs.statSync(dest).size];
    if ((expect.md5 === undefined || expect.md5.toLowerCase() === md5) && (expect.bytes === undefined || expect.bytes === bytes)) {
      return { file: dest, bytes, md5, resumedFrom: bytes, checked: expect.md5 !== undefined };
    }
    fs.rmSync(dest, { force: true });
  }
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  const part = `${dest}.part`;
  const of: PartOf = { url, ...(expect.bytes !== undefined ? { bytes: expect.bytes } : {}), ...(expect.md5 !== undefined ? { md5: expect.md5.toLowerCase() } : {}) };
  let resumedFrom = -1;
  return withRetries(`GET ${url}`, engine.policy, async () => {
    let have = sizeOf(part);
    const known = have > 0 ? readPartOf(part) : undefined;
    if (have > 0 && !(known && known.url === of.url && known.bytes === of.bytes && known.md5 === of.md5)) {
      // Left by another version of the file, another box, or a fetch that did not say what it was downloading: its bytes cannot be vouched for.
      engine.policy.log(`GET ${url}: the ${have.toLocaleString('en-US')} bytes in ${part} are not known to be of this file as the publisher lists it now (${known ? 'a part of another URL, size or md5' : 'no record of what it is a part of'}): downloading it from its first byte`);
      dropPart(part);
      have = 0;
    }
    if (expect.bytes !== undefined && have > expect.bytes) {
      dropPart(part);
      have = 0;
    }
    if (resumedFrom < 0) resumedFrom = have;
    const total = expect.bytes === undefined || have < expect.bytes ? await receive(url, part, have, of, known?.validator, engine) : expect.bytes;
    // An error page is short and whole: it is told by its first bytes, before any size is compared.
    const wrong = notNetcdf(part);
    if (wrong) {
      dropPart(part);
      throw new RetryableError(`it answered with ${wrong}, not a NetCDF file`);
    }
    const got = sizeOf(part);
    if (expect.bytes !== undefined && total !== undefined && total !== expect.bytes) {
      dropPart(part);
      throw new RetryableError(`it holds ${total.toLocaleString('en-US')} bytes, but the publisher's listing says ${expect.bytes.toLocaleString('en-US')} (replaced since it was listed?)`);
    }
    if (expect.bytes !== undefined && got !== expect.bytes) {
      if (got > expect.bytes) dropPart(part);
      throw new RetryableError(`the body held ${got.toLocaleString('en-US')} bytes of the ${expect.bytes.toLocaleString('en-US')} the publisher lists`);
    }
    const md5 = await md5Of(part);
    if (expect.md5 !== undefined && md5 !== expect.md5.toLowerCase()) {
      dropPart(part);
      throw new RetryableError(`the download's md5 ${md5} is not the publisher's ${expect.md5}`);
    }
    fs.renameSync(part, dest);
    fs.rmSync(sidecarOf(part), { force: true });
    return { file: dest, bytes: got, md5, resumedFrom, checked: expect.md5 !== undefined };
  });
}

/**
 * One GET appended to `part` from byte `have` (the whole body when the server ignores Range).
 * Returns the file's whole size as the server states it (Content-Range, or Content-Length of a 200),
 * when it does.
 */
async function receive(url: string, part: string, have: number, of: PartOf, validator: string | undefined, engine: DownloadEngine): Promise<number | undefined> {
  return engine.slots.run(url, async () => {
    if (engine.signal?.aborted) throw new StoppedError(`GET ${url}: stopped`);
    const abort = new AbortController();
    const stop = () => abort.abort();
    engine.signal?.addEventListener('abort', stop);
    const idleMs = engine.idleMs ?? 120_000;
    let idle = setTimeout(() => abort.abort(), idleMs);
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => abort.abort(), idleMs);
    };
    try {
      // If-Range: a file changed at the publisher since the part began answers whole (200), never its new tail.
      const headers: Record<string, string> = have > 0 ? { Range: `bytes=${have}-`, ...(validator ? { 'If-Range': validator } : {}) } : {};
      const res = await fetch(url, { headers, signal: abort.signal });
      if (res.status >= 300 && res.status !== 416) {
        const text = await res.text().catch(() => '');
        checkStatus(res, url, res.headers.get('content-type')?.includes('html') ? '' : text);
      }
      if (res.status === 416) {
        // Nothing past `have`: the part may be whole already; the checks after this say.
        await res.body?.cancel();
        if (have === 0) throw new FetchError(`GET ${url} answered 416 Range Not Satisfiable to a request without a range.`);
        const whole = /\/(\d+)$/.exec(res.headers.get('content-range') ?? '');
        return whole ? Number(whole[1]) : undefined;
      }
      let at = have;
      if (res.status === 206) {
        const start = /^bytes (\d+)-/.exec(res.headers.get('content-range') ?? '');
        if (!start || Number(start[1]) !== have) {
          await res.body?.cancel();
          dropPart(part);
          throw new RetryableError(`it answered a range from byte ${start?.[1] ?? '?'} to a request from byte ${have}`);
        }
      } else {
        at = 0;
      }
      if (at === 0) {
        // Said before the first byte lands, so that whatever a kill leaves is known to be a part of this file.
        const etag = res.headers.get('etag');
        const v = etag && !etag.startsWith('W/') ? etag : (res.headers.get('last-modified') ?? undefined);
        writePartOf(part, { ...of, ...(v ? { validator: v } : {}) });
      }
      const fd = fs.openSync(part, at === 0 ? 'w' : 'r+');
      try {
        if (!res.body) return undefined;
        // Each chunk goes to the kernel as it arrives (no buffer of our own): a SIGKILL leaves on disk every byte received.
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          touch();
          let done = 0;
          while (done < chunk.length) done += fs.writeSync(fd, chunk, done, chunk.length - done, at + done);
          at += chunk.length;
          engine.onBytes?.(chunk.length);
        }
      } catch (err) {
        throw new RetryableError(`the connection was cut after ${at.toLocaleString('en-US')} bytes (${abort.signal.aborted ? `nothing for ${idleMs / 1000} s` : err instanceof Error ? err.message : String(err)})`);
      } finally {
        fs.closeSync(fd);
      }
      const length = Number(res.headers.get('content-length') ?? NaN);
      if (Number.isFinite(length) && at - (res.status === 206 ? have : 0) < length) {
        throw new RetryableError(`the connection was cut after ${at.toLocaleString('en-US')} bytes`);
      }
      const whole = /\/(\d+)$/.exec(res.headers.get('content-range') ?? '');
      return whole ? Number(whole[1]) : Number.isFinite(length) && res.status === 200 ? length : undefined;
    } catch (err) {
      if (engine.signal?.aborted) throw new StoppedError(`GET ${url}: stopped`);
      if (abort.signal.aborted && !(err instanceof RetryableError)) throw new RetryableError(`nothing arrived for ${idleMs / 1000} s`);
      throw err;
    } finally {
      clearTimeout(idle);
      engine.signal?.removeEventListener('abort', stop);
    }
  });
}

/** What a .part is a part of, in `<file>.part.json` beside it: a part is resumed for the same URL, size and md5 only. */
interface PartOf {
  url: string;
  bytes?: number;
  md5?: string;
  /** The answer's ETag (or Last-Modified) when the part began: sent as If-Range on a resume. */
  validator?: string;
}

const sidecarOf = (part: string) => `${part}.json`;

function readPartOf(part: string): PartOf | undefined {
  try {
    const j = JSON.parse(fs.readFileSync(sidecarOf(part), 'utf8')) as Partial<PartOf>;
    if (typeof j.url !== 'string') return undefined;
    return {
      url: j.url,
      ...(typeof j.bytes === 'number' ? { bytes: j.bytes } : {}),
      ...(typeof j.md5 === 'string' ? { md5: j.md5 } : {}),
      ...(typeof j.validator === 'string' ? { validator: j.validator } : {}),
    };
  } catch {
    return undefined;
  }
}

function writePartOf(part: string, of: PartOf) {
  fs.writeFileSync(`${sidecarOf(part)}.tmp`, JSON.stringify(of));
  fs.renameSync(`${sidecarOf(part)}.tmp`, sidecarOf(part));
}

function dropPart(part: string) {
  fs.rmSync(part, { force: true });
  fs.rmSync(sidecarOf(part), { force: true });
}

function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

export function md5Of(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('md5');
    fs.createReadStream(file)
      .on('data', (d) => hash.update(d))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}
