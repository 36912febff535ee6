import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Netcdf4Writer, type AttrValue as H5Attr } from '../../scripts/archiveModel/netcdf4Writer.js';
import type { AttrValue } from '../../src/ingest/netcdf/cfValues.js';
import { calendarDays, isLeap, parseCalendar } from '../../src/ingest/netcdf/cfTime.js';
import { openGridFile } from '../../src/ingest/netcdf/extract.js';
import { netcdf3Bytes, type Nc3Attr } from '../../src/ingest/netcdf/netcdf3Writer.js';

/**
 * A stand-in for NASA NCCS THREDDS's NetCDF Subset Service over NEX-GDDP-CMIP6 files under `root`
 * (`root/NEX-GDDP-CMIP6/{model}/{scenario}/{member}/{var}/{file}` served at
 * `/thredds/ncss/grid/AMES/NEX/GDDP-CMIP6/{model}/...`), written from Unidata's NCSS reference
 * (../shared/reference/archive-access.md section 2): `var` (required), `north`/`south`/`east`/`west`
 * (longitudes modulo 360, west > east crosses the file's seam), `horizStride`, `time_start`/`time_end`
 * (dates of the file's own calendar: 12-31 is no date of a 360_day one), `accept` netcdf (NetCDF-3)
 * or netcdf4, `addLatLon`. It really subsets the file (read with the project's reader, written with
 * the project's writers). Errors as TDS answers them, text/plain: 400 "Invalid Request: ...", 404
 * for a dataset it does not have, 403 "Request Too Large: ..." above `maxBytes` of values.
 */
export const NCSS_PATH = '/thredds/ncss/grid/AMES/NEX/GDDP-CMIP6';

export interface NcssRequest {
  path: string;
  params: Record<string, string>;
  status: number;
  /** The answer's first line, for errors. */
  message?: string;
  /** A subset's latitudes and longitudes (rows, columns). */
  cells?: [number, number];
}

export interface NcssServer {
  /** The base NCSS_URL_NEX_GDDP_CMIP6 takes. */
  url: string;
  requests: NcssRequest[];
  /** Values (4 bytes each) a subset may hold; above it, 403 Request Too Large. */
  maxBytes: number;
  /** Datasets (paths below the base) answered 404 though the files are there. */
  missing: Set<string>;
  /**
   * Whether a cell whose edge lies on (or whose extent crosses) a side of the box is in the subset,
   * not only the cells whose centre lies in it: NCSS's reference leaves it open which a server does.
   */
  edgeCells: boolean;
  close(): Promise<void>;
}

class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** A W3C date-time as a day of the file's calendar (that calendar's day numbers, as cfTime counts them); refused when the calendar has no such date. */
function dayOf(param: string, text: string, calendarAttr: string | undefined): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?Z?)?$/.exec(text);
  if (!m) throw new Refused(400, `Invalid Request: ${param}='${text}' is not a W3C date`);
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const { calendar, name } = parseCalendar(calendarAttr);
  const last = calendar === '360_day' ? 30 : mo === 2 && calendar === 'standard' && isLeap(y) ? 29 : MONTH_DAYS[mo - 1];
  if (mo < 1 || mo > 12 || d < 1 || d > (last ?? 0)) throw new Refused(400, `Invalid Request: ${param}=${text} is not a date of calendar ${name}`);
  return calendarDays([0], `days since ${m[1]}-${m[2]}-${m[3]}`, calendarAttr).days[0]!;
}

const h5Attrs = (attrs: Record<string, AttrValue>): Record<string, H5Attr> =>
  Object.fromEntries(Object.entries(attrs).map(([k, v]) => [k, typeof v === 'string' ? v : { type: 'f8' as const, values: Array.isArray(v) ? v : [v] }]));

const nc3Attrs = (attrs: Record<string, AttrValue>, fillAsFloat: boolean): Record<string, Nc3Attr> =>
  Object.fromEntries(
    Object.entries(attrs).map(([k, v]) => [k, typeof v === 'string' ? v : { type: fillAsFloat && /^(_FillValue|missing_value)$/.test(k) ? ('float' as const) : ('double' as const), values: Array.isArray(v) ? v : [v] }]),
  );

/** The subset's bytes, or a refusal. */
async function subset(file: string, q: URLSearchParams, maxBytes: number, edgeCells: boolean): Promise<{ body: Buffer; type: string; cells: [number, number] }> {
  const param = (k: string) => q.get(k) ?? undefined;
  const variable = param('var');
  if (!variable) throw new Refused(400, 'Invalid Request: must have a var parameter');
  const accept = (param('accept') ?? 'netcdf').toLowerCase();
  if (accept !== 'netcdf' && accept !== 'netcdf4') throw new Refused(400, `Invalid Request: accept=${param('accept')} is not a format of a grid subset (netcdf, netcdf4)`);
  const addLatLon = param('addLatLon') ?? 'false';
  if (!/^(true|false)$/i.test(addLatLon)) throw new Refused(400, `Invalid Request: addLatLon=${addLatLon} must be true or false`);
  const stride = Number(param('horizStride') ?? '1');
  if (!Number.isInteger(stride) || stride < 1) throw new Refused(400, `Invalid Request: horizStride=${param('horizStride')} must be a whole number, 1 or more`);
  const edges = ['north', 'south', 'east', 'west'].map((k) => param(k));
  if (edges.some((e) => e !== undefined) && edges.some((e) => e === undefined)) throw new Refused(400, 'Invalid Request: a bounding box needs all of north, south, east and west');
  const [north, south, east, west] = edges.map((e) => (e === undefined ? NaN : Number(e))) as [number, number, number, number];
  if (edges[0] !== undefined && ([north, south, east, west].some((x) => !Number.isFinite(x)) || north < south || north > 90 || south < -90)) {
    throw new Refused(400, `Invalid Request: bounding box north=${edges[0]} south=${edges[1]} east=${edges[2]} west=${edges[3]} is not a box`);
  }
  const f = await openGridFile(file);
  try {
    const v = f.variable(variable);
    if (!v || v.shape.length !== 3) throw new Refused(400, `Invalid Request: variable '${variable}' is not a grid of this dataset (it has ${f.variableNames().join(', ')})`);
    const [lats, lons, times] = [f.readAll('lat'), f.readAll('lon'), f.readAll('time')];
    const timeAttrs = f.variable('time')!.attrs;
    const calendar = typeof timeAttrs.calendar === 'string' ? timeAttrs.calendar : undefined;
    const days = calendarDays(times, String(timeAttrs.units), calendar).days;
    const from = param('time_start') !== undefined ? dayOf('time_start', param('time_start')!, calendar) : -Infinity;
    const to = param('time_end') !== undefined ? dayOf('time_end', param('time_end')!, calendar) : Infinity;
    if (from > to) throw new Refused(400, `Invalid Request: time_start ${param('time_start')} is after time_end ${param('time_end')}`);
    const ts = [...days.keys()].filter((k) => days[k]! >= from && days[k]! <= to);
    const bounded = edges[0] !== undefined;
    // Half a cell, when cells touching a side count: a centre that far outside the box still has its edge on the side.
    const reach = (x: Float64Array) => (edgeCells && x.length > 1 ? Math.abs(x[1]! - x[0]!) / 2 + 1e-9 : 0);
    const [hLat, hLon] = [reach(lats), reach(lons)];
    const is = [...lats.keys()].filter((i) => !bounded || (lats[i]! >= south - hLat && lats[i]! <= north + hLat)).filter((_, n) => n % stride === 0);
    const w = ((west % 360) + 360) % 360;
    const e = ((east % 360) + 360) % 360;
    const l360 = (j: number) => ((lons[j]! % 360) + 360) % 360;
    // West to east; across the file's seam when west > east.
    const js = !bounded
      ? [...lons.keys()]
      : w <= e
        ? [...lons.keys()].filter((j) => l360(j) >= w - hLon && l360(j) <= e + hLon).sort((a, b) => l360(a) - l360(b))
        : [...[...lons.keys()].filter((j) => l360(j) >= w - hLon).sort((a, b) => l360(a) - l360(b)), ...[...lons.keys()].filter((j) => l360(j) <= e + hLon).sort((a, b) => l360(a) - l360(b))];
    const jsStrided = js.filter((_, n) => n % stride === 0);
    if (ts.length === 0) throw new Refused(400, `Invalid Request: no time of the dataset lies in ${param('time_start')}..${param('time_end')}`);
    if (is.length === 0 || jsStrided.length === 0) throw new Refused(400, `Invalid Request: the bounding box does not intersect the grid (lat ${lats[0]}..${lats.at(-1)}, lon ${lons[0]}..${lons.at(-1)})`);
    const bytes = ts.length * is.length * jsStrided.length * 4;
    if (bytes > maxBytes) throw new Refused(403, `Request Too Large: ${bytes} bytes asked for, the limit is ${maxBytes} bytes`);

    const [nt, ni, nj] = [ts.length, is.length, jsStrided.length];
    const data = new Float32Array(nt * ni * nj);
    const block = f.readBlock(variable, [ts[0]!, ts.at(-1)! + 1], [0, lats.length], [0, lons.length]);
    for (let a = 0; a < nt; a++) {
      for (let b = 0; b < ni; b++) {
        for (let c = 0; c < nj; c++) data[(a * ni + b) * nj + c] = block[((ts[a]! - ts[0]!) * lats.length + is[b]!) * lons.length + jsStrided[c]!]!;
      }
    }
    const coords = { time: Float64Array.from(ts, (k) => times[k]!), lat: Float64Array.from(is, (i) => lats[i]!), lon: Float64Array.from(jsStrided, (j) => lons[j]!) };
    const attrsOf = (name: string) => f.variable(name)?.attrs ?? {};
    if (accept === 'netcdf') {
      const body = netcdf3Bytes({
        dims: { time: nt, lat: ni, lon: nj },
        globalAttrs: nc3Attrs(f.globalAttrs, false),
        variables: [
          ...(['time', 'lat', 'lon'] as const).map((c) => ({ name: c, dims: [c], type: 'double' as const, attrs: nc3Attrs(attrsOf(c), false), data: coords[c] })),
          { name: variable, dims: ['time', 'lat', 'lon'], type: 'float', attrs: nc3Attrs(attrsOf(variable), true), data },
        ],
      });
      return { body, type: 'application/x-netcdf', cells: [ni, nj] };
    }
    const tmp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ncss-')), 'subset.nc4');
    const out = Netcdf4Writer.create(tmp);
    for (const [k, val] of Object.entries(h5Attrs(f.globalAttrs))) out.globalAttr(k, val);
    for (const c of ['time', 'lat', 'lon'] as const) out.coordinate(c, coords[c], h5Attrs(attrsOf(c)));
    const { _FillValue: fill, ...attrs } = attrsOf(variable);
    const fillValue = typeof fill === 'number' ? fill : Array.isArray(fill) ? fill[0] : undefined;
    out.stored(
      { name: variable, dims: ['time', 'lat', 'lon'], type: 'f4', shape: [nt, ni, nj], attrs: { ...h5Attrs(attrs), ...(fillValue !== undefined ? { missing_value: { type: 'f4', values: [fillValue] } } : {}) } },
      'contiguous',
      new Uint8Array(data.buffer),
    );
    out.close();
    const body = fs.readFileSync(tmp);
    fs.rmSync(path.dirname(tmp), { recursive: true, force: true });
    return { body, type: 'application/x-netcdf4', cells: [ni, nj] };
  } finally {
    f.close();
  }
}

export async function startNcssServer(root: string, opts: { maxBytes?: number; edgeCells?: boolean } = {}): Promise<NcssServer> {
  const requests: NcssRequest[] = [];
  const missing = new Set<string>();
  const state = { maxBytes: opts.maxBytes ?? Number.MAX_SAFE_INTEGER, edgeCells: opts.edgeCells ?? false };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    const rest = decodeURIComponent(url.pathname.slice(NCSS_PATH.length + 1));
    const entry: NcssRequest = { path: rest, params: Object.fromEntries(url.searchParams), status: 0 };
    requests.push(entry);
    const answer = (status: number, body: Buffer | string, type = 'text/plain') => {
      entry.status = status;
      if (status !== 200) entry.message = String(body).split('\n')[0];
      res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) }).end(body);
    };
    const file = path.join(root, 'NEX-GDDP-CMIP6', rest);
    if (!url.pathname.startsWith(`${NCSS_PATH}/`) || rest.includes('..') || missing.has(rest) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      answer(404, `FileNotFound: Not a dataset: ${url.pathname}`);
      return;
    }
    subset(file, url.searchParams, state.maxBytes, state.edgeCells).then(
      ({ body, type, cells }) => {
        entry.cells = cells;
        answer(200, body, type);
      },
      (err: unknown) => (err instanceof Refused ? answer(err.status, err.message) : answer(500, `Server error: ${err instanceof Error ? err.message : String(err)}`)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}${NCSS_PATH}`,
    requests,
    get maxBytes() {
      return state.maxBytes;
    },
    set maxBytes(n: number) {
      state.maxBytes = n;
    },
    get edgeCells() {
      return state.edgeCells;
    },
    set edgeCells(on: boolean) {
      state.edgeCells = on;
    },
    missing,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
