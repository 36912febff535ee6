/**
 * The synthetic climate of one map cell and scenario, computed in typed arrays: physically
 * plausible daily tasmax, tasmin (K) and pr (kg m-2 s-1) for each model (and, where the dataset
 * has them, tas (K), hurs (%) and huss (kg kg-1) that hang together with them), model by model in date
 * order, as the cell files store them. It ran as SQL until the default build had to fit its time
 * budget: expressions over every (model, day) row cost 0.34 us a row there, three to four times
 * what they cost here (docs/data.md, "Where the default build's time goes").
 *
 * Deterministic: every random number is a hash of (seed, cell, scenario, model, stream, day or
 * knot). Noise is indexed by days since 1950-01-01, so a narrower year range gives the same values
 * for the days it keeps.
 */

/**
 * What shapes a cell's synthetic climate besides its latitude: weights in [0, 1] that the generator
 * (syntheticDays below) turns into temperature and precipitation parameters. They are
 * coarse stand-ins for geography the build has no data for (elevation, rain shadows, monsoons).
 */
export interface CellClimate {
  lat: number;
  lon: number;
  /** Continentality: 0 at the coast, 1 from 800 km inland. */
  continentality: number;
  /** Pacific maritime influence: 1 on the west coast, 0 from 200 km inland. */
  westCoast: number;
  /** Desert Southwest (Mojave and Sonoran deserts). */
  aridity: number;
  /** Semi-arid interior West and High Plains, east of the Cascades and the Sierra Nevada. */
  steppe: number;
  /** Rocky Mountains and Colorado Plateau: cooler for their elevation. */
  highland: number;
  /** Humid subtropical Gulf and Florida coast: a summer wet season and heavier rain. */
  subtropic: number;
}

export interface SyntheticDaysJob {
  seed: number;
  cellId: number;
  /** historical | RCP45 | RCP85 | ssp126 | ssp245 | ssp370 | ssp585 */
  scenario: string;
  /** Inclusive. */
  years: [number, number];
  /** In the order the rows come out (the files store them sorted by model). */
  models: string[];
  /** Each model's calendar: standard (every day), noleap (no Feb 29) or 360_day. */
  calendars: ('standard' | 'noleap' | '360_day')[];
  /**
   * The days of the year (1-based) that no day of a 360-day year lands on, in a year of 365 and of
   * 366 days: the NetCDF ingest's rule (synthetic.ts daysWithout360), so that synthetic 360-day
   * models have rows on the dates ingested ones have.
   */
  skip360: { 365: number[]; 366: number[] };
  climate: CellClimate;
  /**
   * Per model, whether it has tas, hurs and huss (NEX-GDDP-CMIP6), and which of hurs and huss
   * its publisher left out (NaN there: NULL in the files). Undefined: the dataset has none.
   */
  humidity?: { hurs: boolean; huss: boolean }[];
}

/** One model's days: dates as days since 1970-01-01 (DuckDB's DATE). */
export interface ModelDays {
  model: number;
  date: Int32Array;
  tasmax: Float32Array;
  tasmin: Float32Array;
  pr: Float32Array;
  /** With the job's humidity: daily mean temperature (K), relative humidity (%), specific humidity (kg kg-1). */
  humid?: { tas: Float32Array; hurs: Float32Array; huss: Float32Array };
}

const DAY_MS = 86_400_000;
/** Days from 1970-01-01 to 1950-01-01. */
const EPOCH_1950 = -7305;
const TWO_PI = 2 * Math.PI;

/** A 32-bit integer mix with good avalanche (a murmur3-style finaliser). */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x21f0aaad);
  h ^= h >>> 15;
  h = Math.imul(h, 0x735a2d97);
  h ^= h >>> 15;
  return h >>> 0;
}

/** A uniform in [0, 1) from (key, stream, index). */
const uniform = (key: number, stream: number, j: number) => mix(key ^ mix(Math.imul(stream, 0x9e3779b9) ^ mix(j))) / 4294967296;

/** A 32-bit key of strings and integers (FNV-1a over their UTF-16 units, then mixed). */
function keyOf(...parts: (string | number)[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    const s = `${part}\u0000`;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  }
  return mix(h >>> 0);
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** The cell's climate constants (the parameters the weights of CellClimate set). */
function constants(c: CellClimate) {
  const lat = Math.abs(c.lat);
  const { continentality: cont, westCoast: west, aridity: arid, steppe, highland, subtropic } = c;
  return {
    // annual mean of the daily mean temperature, deg C
    tMean: 25.5 - 0.8 * Math.max(0, lat - 25.5) - 2 * cont + 3 * arid - 4 * highland + 3.5 * west * clamp01((lat - 40) / 5),
    // half the difference between the warmest and the coldest day, K
    tAmp: Math.max(2, 3 + 0.4 * (lat - 20) + 4 * cont - 6 * west - 3 * highland),
    // warmest day of the year: late July inland, later by the sea, September on the California
    // coast, mid-August in the Pacific Northwest
    tPeak: 200 + 12 * (1 - cont) + 25 * west * (1 - 0.6 * clamp01((lat - 38) / 8)),
    // diurnal temperature range on dry days, K
    dtr: 8.5 + 4 * cont + 4 * Math.max(arid, steppe),
    // standard deviation of the daily anomaly, K (x1.4 in winter, x0.6 in summer)
    tSd: 3 + 2.4 * cont - 1 * west,
    // regional warming relative to the global figure (stronger at high latitudes)
    amplify: 1 + 0.01 * (lat - 30),
    // yearly fraction of wet days
    pWet: 0.33 * (1 - 0.65 * arid) * (1 - 0.35 * steppe) * (1 - 0.6 * west * clamp01((42 - lat) / 6)) + 0.12 * west * clamp01((lat - 38) / 6),
    // mean relative humidity of a dry day, %: dry in the deserts and the steppe, moist on the Gulf and the Pacific coasts
    rhMean: 68 - 38 * arid - 18 * steppe + 8 * subtropic + 6 * west - 6 * cont * (1 - subtropic),
    // mean precipitation of a wet day, mm
    wetMm: 8.5 + 3.5 * subtropic - 3 * Math.max(arid, steppe) - 2.5 * west + 4 * west * clamp01((42 - lat) / 6),
    // seasonal weights of the wet-day probability: winter rains on the Pacific coast, early-summer
    // rains inland, a late-summer wet season in the subtropics and deserts
    rainWinter: 0.9 * west,
    rainSummer: 0.5 * Math.max(cont, steppe) * (1 - west),
    rainSubtropic: 0.5 * subtropic,
    rainDesert: 0.3 * arid,
  };
}

/**
 * Warming in K before the model's sensitivity, at the fractional year `yf`. The two RCPs start
 * together in 2006 (RCP 8.5 always a little warmer); RCP 4.5 levels off, RCP 8.5 accelerates.
 * CMIP6's historical runs to 2014 on the same line as CMIP5's. The SSPs continue that line from 2015
 * plus x6^2 and x6^3 terms, so they join it with the same value and slope; by 2100 (the line gives
 * 0.91 K of 2015-2100): SSP1-2.6 +1.1 K over 2015, levelling off; SSP2-4.5 +2.2, slowing; SSP3-7.0
 * +3.6 and SSP5-8.5 +4.6, accelerating (ordered at every x6 > 0, as AR6 orders their 2081-2100 warming).
 */
function warmingCurve(scenario: string): (yf: number) => number {
  const x = (yf: number) => Math.max(0, yf - 2006) / 94;
  const x6 = (yf: number) => Math.max(0, yf - 2015) / 85;
  const line = (yf: number) => -0.3 + (0.6 * (yf - 1950)) / 56;
  const ssp = (a: number, b: number) => (yf: number) => line(yf) + x6(yf) * x6(yf) * (a - b * x6(yf));
  switch (scenario) {
    case 'historical':
      return line;
    case 'RCP45':
      return (yf) => 0.3 + 2.1 * (0.7 * x(yf) + 1.4 * x(yf) ** 2 - 1.1 * x(yf) ** 3);
    case 'RCP85':
      return (yf) => 0.3 + 4.7 * (0.35 * x(yf) + 0.65 * x(yf) ** 2);
    case 'ssp126':
      return ssp(1.3, 1.1);
    case 'ssp245':
      return ssp(3.3, 2.0);
    case 'ssp370':
      return ssp(4.0, 1.3);
    case 'ssp585':
      return ssp(6.0, 2.3);
    default:
      // Named, not a default curve: an unknown scenario fails instead of warming silently.
      throw new Error(`synthetic climate: unknown scenario ${scenario}`);
  }
}

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** What every model of the cell shares on each day of the years: the calendar and the cell's climate. */
function sharedDays(job: SyntheticDaysJob) {
  const k = constants(job.climate);
  const warming = warmingCurve(job.scenario);
  const [y0, y1] = job.years;
  const first = Date.UTC(y0, 0, 1) / DAY_MS;
  const n = Date.UTC(y1 + 1, 0, 1) / DAY_MS - first;
  const day = {
    date: new Int32Array(n),
    feb29: new Uint8Array(n),
    skip360: new Uint8Array(n),
    base: new Float64Array(n),
    sd: new Float64Array(n),
    pWet: new Float64Array(n),
    warming: new Float64Array(n),
  };
  const skip365 = new Set(job.skip360[365]);
  const skip366 = new Set(job.skip360[366]);
  let i = 0;
  for (let y = y0; y <= y1; y++) {
    const leap = isLeap(y);
    const days = leap ? 366 : 365;
    for (let doy = 1; doy <= days; doy++, i++) {
      day.date[i] = first + i;
      day.feb29[i] = leap && doy === 60 ? 1 : 0;
      day.skip360[i] = (leap ? skip366 : skip365).has(doy) ? 1 : 0;
      // +1 on the warmest day of the year, -1 on the coldest
      const season = Math.cos((TWO_PI * (doy - k.tPeak)) / 365.25);
      const wetSeason = Math.max(
        0.05,
        1 +
          k.rainWinter * Math.cos((TWO_PI * (doy - 15)) / 365.25) +
          k.rainSummer * Math.cos((TWO_PI * (doy - 165)) / 365.25) +
          k.rainSubtropic * Math.cos((TWO_PI * (doy - 210)) / 365.25) +
          k.rainDesert * Math.cos((TWO_PI * (doy - 215)) / 365.25),
      );
      day.base[i] = k.tMean + 273.15 + k.tAmp * season;
      day.sd[i] = k.tSd * (1 - 0.4 * season);
      day.pWet[i] = k.pWet * wetSeason;
      day.warming[i] = k.amplify * warming(y + (doy - 0.5) / 365.25);
    }
  }
  return { k, day, n };
}

/**
 * Value noise: a value per knot every `every` days from the knot of day t0 to the one after day t1
 * (hashed once, not on each of the days it serves). `bell`: the sum of two uniforms, in [-1, 1];
 * otherwise a uniform in [0, 1).
 */
function knots(key: number, stream: number, every: number, t0: number, t1: number, bell: boolean): Float64Array {
  const j0 = Math.floor(t0 / every);
  const out = new Float64Array(Math.floor(t1 / every) - j0 + 2);
  for (let j = 0; j < out.length; j++) out[j] = bell ? uniform(key, stream, j0 + j) + uniform(key, stream + 16, j0 + j) - 1 : uniform(key, stream, j0 + j);
  return out;
}

/** Each day's knot (index into knots()) and its smoothstep weight towards the next knot. */
function knotPlaces(every: number, t0: number, n: number) {
  const at = new Int32Array(n);
  const weight = new Float64Array(n);
  const j0 = Math.floor(t0 / every);
  for (let i = 0; i < n; i++) {
    const t = t0 + i;
    const f = (t % every) / every;
    at[i] = Math.floor(t / every) - j0;
    weight[i] = f * f * (3 - 2 * f);
  }
  return { at, weight };
}

/**
 * Specific humidity (kg kg-1) of air at `t` K with relative humidity `rh` % at 1013.25 hPa: the
 * inverse of relative_humidity_from_huss in sql/indicators/macros.sql (Bolton's saturation vapour
 * pressure), so that the heat index reads back the humidity generated.
 */
export function specificHumidity(t: number, rh: number): number {
  const c = t - 273.15;
  const e = (rh / 100) * 6.112 * Math.exp((17.67 * c) / (c + 243.5));
  return (0.622 * e) / (1013.25 - 0.378 * e);
}

/** Temperatures to 0.01 K: nothing of substance is lost, the files are a fifth smaller, and the values print short (287.23). */
const centi = (x: number) => Math.fround(Math.round(x * 100) / 100);

type Shared = ReturnType<typeof sharedDays>;
type KnotPlaces = ReturnType<typeof knotPlaces>;

/** What one model's days are made of besides the shared days: its hash key, bias, sensitivity and value noise. */
interface ModelNoise {
  key: number;
  bias: number;
  sens: number;
  fast: Float64Array;
  slow: Float64Array;
  wetRegime: Float64Array;
  /** The humidity's own slow noise (knots every 7 days), apart from the temperature's; undefined without humidity. */
  moist: Float64Array | undefined;
}

/**
 * Fills `out` with the model's days (those `skip` does not mark) in date order. A function of its
 * own, not a loop in the generator: V8 optimises it once, where the generator was recompiled cell
 * after cell.
 */
function fillModelDays(out: ModelDays, { k, day, n }: Shared, t0: number, places: { p3: KnotPlaces; p11: KnotPlaces; p5: KnotPlaces; p7: KnotPlaces | undefined }, noise: ModelNoise, skip: Uint8Array | undefined, humidity: { hurs: boolean; huss: boolean } | undefined) {
  const { key, bias, sens, fast, slow, wetRegime, moist } = noise;
  const { p3, p11, p5, p7 } = places;
  const humid = out.humid;
  let r = 0;
  for (let i = 0; i < n; i++) {
    if (skip?.[i]) continue;
    const t = t0 + i;
    // four uniforms of the day: white noise of the temperature and of its range, the wet draw, the amount
    const h = mix(key ^ mix(t));
    const fa = fast[p3.at[i]!]!;
    const sa = slow[p11.at[i]!]!;
    const ra = wetRegime[p5.at[i]!]!;
    const regime = ra + (wetRegime[p5.at[i]! + 1]! - ra) * p5.weight[i]!;
    const wet = mix(h ^ 0x68e31da4) / 4294967296 < day.pWet[i]! * (0.3 + 1.4 * regime);
    const dt = day.warming[i]! * sens;
    // the day's anomaly: slow and fast value noise and white noise, larger in winter
    const anomaly = 1.5 * (sa + (slow[p11.at[i]! + 1]! - sa) * p11.weight[i]!) + 1.2 * (fa + (fast[p3.at[i]! + 1]! - fa) * p3.weight[i]!) + 0.9 * (mix(h ^ 0x1b873593) / 4294967296 - 0.5);
    const tmean = day.base[i]! + bias + dt + day.sd[i]! * anomaly;
    // wet days have a smaller diurnal range; it never drops below 1 K, so tasmin < tasmax
    const range = Math.max(1, k.dtr * (wet ? 0.6 : 1) * (0.8 + (0.4 * mix(h ^ 0xcc9e2d51)) / 4294967296));
    out.date[r] = day.date[i]!;
    out.tasmax[r] = centi(tmean + range / 2);
    out.tasmin[r] = centi(tmean - range / 2);
    // exponential amounts, heavier in wet regimes and a little heavier per K of warming (mm/day -> kg m-2 s-1)
    out.pr[r] = wet ? Math.fround((-k.wetMm * (0.6 + 0.8 * regime) * (1 + 0.05 * dt) * Math.log(1 - mix(h ^ 0xe6546b64) / 4294967296)) / 86400) : 0;
    if (humid) {
      // NEX-GDDP-CMIP6's tas is derived from tasmax and tasmin: their mean, so tasmin <= tas <= tasmax.
      const tas = centi((out.tasmax[r]! + out.tasmin[r]!) / 2);
      // Moister on wet days, drier on days warmer than the season, and slow noise of its own.
      const ma = moist![p7!.at[i]!]!;
      const rh = k.rhMean + (wet ? 16 : 0) - 1.2 * (tmean - day.base[i]! - bias - dt) + 9 * (ma + (moist![p7!.at[i]! + 1]! - ma) * p7!.weight[i]!);
      const hurs = Math.min(100, Math.max(3, rh));
      humid.tas[r] = tas;
      humid.hurs[r] = humidity!.hurs ? Math.fround(Math.round(hurs * 100) / 100) : NaN;
      humid.huss[r] = humidity!.huss ? Math.fround(specificHumidity(tas, hurs)) : NaN;
    }
    r++;
  }
}

const countOf = (flags: Uint8Array) => {
  let n = 0;
  for (let i = 0; i < flags.length; i++) n += flags[i]!;
  return n;
};

/** Each model's days, model by model in the order of `job.models`. */
export function* syntheticDays(job: SyntheticDaysJob): Generator<ModelDays> {
  const shared = sharedDays(job);
  const { day, n } = shared;
  const t0 = day.date[0]! - EPOCH_1950;
  const t1 = t0 + n - 1;
  const places = { p3: knotPlaces(3, t0, n), p11: knotPlaces(11, t0, n), p5: knotPlaces(5, t0, n), p7: job.humidity ? knotPlaces(7, t0, n) : undefined };
  for (const [m, model] of job.models.entries()) {
    const key = keyOf(job.seed, job.cellId, job.scenario, model);
    const humidity = job.humidity?.[m];
    const noise: ModelNoise = {
      key,
      // A model's warm or cold bias and its climate sensitivity are the same in every cell and scenario.
      bias: (keyOf(job.seed, model, 'bias') / 4294967296) * 3 - 1.5,
      sens: 0.7 + (keyOf(job.seed, model, 'sensitivity') / 4294967296) * 0.6,
      // Fast and slow temperature noise (knots every 3 and 11 days), and the wet regime (every 5).
      fast: knots(key, 1, 3, t0, t1, true),
      slow: knots(key, 2, 11, t0, t1, true),
      wetRegime: knots(key, 3, 5, t0, t1, false),
      moist: humidity ? knots(key, 4, 7, t0, t1, true) : undefined,
    };
    const calendar = job.calendars[m];
    const skip = calendar === 'noleap' ? day.feb29 : calendar === '360_day' ? day.skip360 : undefined;
    const rows = skip ? n - countOf(skip) : n;
    // Every model's days have the same shape (humid or not), so the code that reads them sees one.
    const out: ModelDays = {
      model: m,
      date: new Int32Array(rows),
      tasmax: new Float32Array(rows),
      tasmin: new Float32Array(rows),
      pr: new Float32Array(rows),
      humid: humidity ? { tas: new Float32Array(rows), hurs: new Float32Array(rows), huss: new Float32Array(rows) } : undefined,
    };
    fillModelDays(out, shared, t0, places, noise, skip, humidity);
    yield out;
  }
}
