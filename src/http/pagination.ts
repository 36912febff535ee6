import type { Request } from 'express';
import { NotFoundError } from '../errors.js';

/** Absolute URL of this request with some query parameters replaced (null removes one). */
export function linkWith(req: Request, changes: Record<string, string | null>): string {
  const url = new URL(req.originalUrl, `${req.protocol}://${req.get('host') ?? 'localhost'}`);
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) url.searchParams.delete(k);
    else url.searchParams.set(k, v);
  }
  return url.toString();
}

export interface PageWindow {
  start: number;
  end: number;
  next: string | null;
  previous: string | null;
}

/**
 * Page-number pagination (cities): `page` is 1-based or 'last'. A page past the end is a 404
 * "Invalid page." like the original; the first page of an empty result is an empty page.
 */
export function pageWindow(req: Request, count: number, page: number | 'last', pageSize: number): PageWindow {
  const lastPage = Math.max(1, Math.ceil(count / pageSize));
  const p = page === 'last' ? lastPage : page;
  if (p > lastPage) throw new NotFoundError('Invalid page.');
  return {
    start: (p - 1) * pageSize,
    end: Math.min(count, p * pageSize),
    next: p < lastPage ? linkWith(req, { page: String(p + 1) }) : null,
    previous: p > 1 ? linkWith(req, { page: p === 2 ? null : String(p - 1) }) : null,
  };
}

/** Limit/offset pagination (regions). */
export function offsetWindow(req: Request, count: number, limit: number, offset: number): PageWindow {
  const start = Math.min(offset, count);
  const end = Math.min(count, offset + limit);
  const prevOffset = Math.max(0, offset - limit);
  return {
    start,
    end,
    next: offset + limit < count ? linkWith(req, { limit: String(limit), offset: String(offset + limit) }) : null,
    previous:
      offset > 0
        ? linkWith(req, { limit: String(limit), offset: prevOffset === 0 ? null : String(prevOffset) })
        : null,
  };
}
