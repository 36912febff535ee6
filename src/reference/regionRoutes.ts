import { Router, type Response } from 'express';
import { encode } from 'geobuf';
import Pbf from 'pbf';
import { z } from 'zod';
import { badRequest, NotFoundError } from '../errors.js';
import { offsetWindow } from '../http/pagination.js';
import { integer, queryParser, text } from '../http/queryParams.js';
import type { Catalog, Region } from './catalog.js';
import { regionFeatureJson, regionListItem } from './features.js';

export const regionListQuery = {
  limit: integer({ min: 1, max: 1000 }).default(20).meta({ description: 'Regions per page.' }),
  offset: integer({ min: 0 }).default(0).meta({ description: 'Regions to skip.' }),
  search: text().optional().meta({ description: 'Whitespace- or comma-separated terms, each found in the level 1 or level 2 description.' }),
  level1: integer().optional().meta({ description: 'Level 1 ecoregion code.' }),
  level2: integer().optional().meta({ description: 'Level 2 ecoregion code.' }),
  in_bbox: text().optional().meta({ description: 'minlon,minlat,maxlon,maxlat: regions whose bounding box overlaps it.' }),
  ordering: z
    .enum(['id', '-id', 'level1', '-level1', 'level2', '-level2'], { error: 'must be one of id, level1, level2 (prefix - for descending)' })
    .optional()
    .meta({ description: 'Sort field; - for descending.' }),
};
const listParams = queryParser(regionListQuery);

const FORMATS = ['json', 'pbf', 'api'] as const;
type Format = (typeof FORMATS)[number];
export const regionDetailQuery = {
  format: z
    .enum(FORMATS, { error: `must be one of ${FORMATS.join(', ')}` })
    .optional()
    .meta({ description: 'json (GeoJSON, the default), pbf (Geobuf) or api (a browsable HTML page).' }),
};
const detailParams = queryParser(regionDetailQuery);

/** Every whitespace- or comma-separated term must appear in one of the two descriptions. */
function matchesSearch(r: Region, terms: string[]): boolean {
  const l1 = r.level1_description.toLowerCase();
  const l2 = r.level2_description.toLowerCase();
  return terms.every((t) => l1.includes(t) || l2.includes(t));
}

function bboxOverlaps(r: Region, [minLon, minLat, maxLon, maxLat]: number[]): boolean {
  const [a, b, c, d] = r.bbox;
  return a <= maxLon! && c >= minLon! && b <= maxLat! && d >= minLat!;
}

function parseBbox(value: string): number[] {
  const nums = value.split(',').map((p) => (p.trim() === '' ? NaN : Number(p)));
  if (nums.length !== 4 || !nums.every(Number.isFinite) || nums[0]! > nums[2]! || nums[1]! > nums[3]!) {
    throw badRequest(`Invalid bbox string supplied for parameter in_bbox: expected minlon,minlat,maxlon,maxlat; got '${value}'.`);
  }
  return nums;
}

function sendRegion(res: Response, region: Region, format: Format) {
  const json = regionFeatureJson(region);
  if (format === 'pbf') {
    const bytes = encode(JSON.parse(json), new Pbf());
    res
      .type('application/octet-stream')
      .set('Content-Disposition', `attachment; filename=region-${region.id}.pbf`)
      .send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } else if (format === 'api') {
    // The browsable form: the same document, pretty-printed in a page.
    const pretty = JSON.stringify(JSON.parse(json), null, 2).replace(/&/g, '&amp;').replace(/</g, '&lt;');
    res.type('text/html').send(`<!doctype html><meta charset="utf-8"><title>Region ${region.id}</title><pre>${pretty}</pre>`);
  } else {
    res.type('application/json').send(json);
  }
}

export function regionRoutes(catalog: Catalog): Router {
  const router = Router();

  router.get('/api/region/', (req, res) => {
    const q = listParams(req.query);
    const terms = (q.search ?? '').toLowerCase().split(/[\s,]+/).filter(Boolean);
    const bbox = q.in_bbox === undefined ? undefined : parseBbox(q.in_bbox);
    let regions = catalog.regions.filter(
      (r) =>
        (q.level1 === undefined || r.level1 === q.level1) &&
        (q.level2 === undefined || r.level2 === q.level2) &&
        (terms.length === 0 || matchesSearch(r, terms)) &&
        (bbox === undefined || bboxOverlaps(r, bbox)),
    );
    if (q.ordering) {
      const field = q.ordering.replace('-', '') as 'id' | 'level1' | 'level2';
      const sign = q.ordering.startsWith('-') ? -1 : 1;
      regions = [...regions].sort((a, b) => sign * (a[field] - b[field]) || a.id - b.id);
    }
    const w = offsetWindow(req, regions.length, q.limit, q.offset);
    res.json({ count: regions.length, next: w.next, previous: w.previous, results: regions.slice(w.start, w.end).map(regionListItem) });
  });

  // `/api/region/30.pbf` (slash optional) is the same as `/api/region/30/?format=pbf`.
  router.get(/^\/api\/region\/([^/.]+)(?:\.([a-z]+))?\/?$/, (req, res) => {
    const params = req.params as unknown as Record<string, string | undefined>;
    const pk = params[0]!;
    const suffix = params[1];
    if (suffix === undefined && !req.path.endsWith('/')) {
      res.redirect(301, req.originalUrl.replace(/^([^?]*)/, '$1/'));
      return;
    }
    const q = detailParams(req.query);
    const format = (suffix ?? q.format ?? 'json') as Format;
    if (!(FORMATS as readonly string[]).includes(format)) {
      throw badRequest(`The region format suffix must be one of ${FORMATS.map((f) => '.' + f).join(', ')}; got '.${suffix}'.`);
    }
    const region = /^\d+$/.test(pk) ? catalog.regionById.get(Number(pk)) : undefined;
    if (!region) {
      throw new NotFoundError(/^\d+$/.test(pk) ? `Region ${pk} does not exist.` : `${pk} is not a valid region ID.`);
    }
    sendRegion(res, region, format);
  });

  return router;
}
