/**
 * The generalized extreme-value (GEV) distribution fitted by L-moments (Hosking 1990; Hosking and
 * Wallis 1997, appendix A.5), in Hosking's parametrization: location xi, scale alpha > 0, shape k
 * (k > 0 bounded above, k < 0 a heavy upper tail, k = 0 the Gumbel), quantile
 * x(F) = xi + alpha (1 - (-log F)^k) / k.
 */
export interface GevFit {
  location: number;
  scale: number;
  shape: number;
}

/** The sample L-moments l1, l2 and the L-skewness t3 = l3 / l2, from the unbiased probability-weighted moments b0, b1, b2. */
export function sampleLMoments(values: number[]): { l1: number; l2: number; t3: number } {
  const x = [...values].sort((a, b) => a - b);
  const n = x.length;
  let b0 = 0;
  let b1 = 0;
  let b2 = 0;
  for (let j = 0; j < n; j++) {
    // j is the 0-based rank: the weights are (j)/(n-1) and j(j-1)/((n-1)(n-2)).
    b0 += x[j]!;
    b1 += (x[j]! * j) / (n - 1);
    b2 += (x[j]! * j * (j - 1)) / ((n - 1) * (n - 2));
  }
  b0 /= n;
  b1 /= n;
  b2 /= n;
  const l2 = 2 * b1 - b0;
  return { l1: b0, l2, t3: (6 * b2 - 6 * b1 + b0) / l2 };
}

const LN2 = Math.LN2;
const LN3 = Math.log(3);

/** (1 - e^(-k a)) / k, which tends to a as k -> 0, without cancellation for small k. */
const oneMinusPowOverK = (k: number, a: number) => (k === 0 ? a : -Math.expm1(-k * a) / k);

/** The GEV's L-skewness as a function of the shape: 2 (1 - 3^-k) / (1 - 2^-k) - 3. Decreasing, from 1 at k = -1 to -1 as k grows. */
export function gevSkewness(k: number): number {
  return (2 * oneMinusPowOverK(k, LN3)) / oneMinusPowOverK(k, LN2) - 3;
}

/** Its derivative; at and near 0 (where the quotient rule cancels) the limit -(ln3/ln2)(ln3 - ln2), enough for Newton's steps. */
function gevSkewnessSlope(k: number): number {
  if (Math.abs(k) < 1e-6) return -(LN3 / LN2) * (LN3 - LN2);
  const p3 = Math.pow(3, -k);
  const p2 = Math.pow(2, -k);
  return (2 * (LN3 * p3 * (1 - p2) - (1 - p3) * LN2 * p2)) / ((1 - p2) * (1 - p2));
}

/** Hosking, Wallis and Wood's (1985) approximation of the shape from t3, accurate to 0.0009 for -0.5 <= k <= 0.5: the starting point only. */
export function approximateShape(t3: number): number {
  const c = 2 / (3 + t3) - LN2 / LN3;
  return 7.859 * c + 2.9554 * c * c;
}

/**
 * The shape k that solves gevSkewness(k) = t3 (-1 < t3 < 1) to full double precision: Newton's
 * method from the approximation, kept inside a bracket that every step narrows (a bisection
 * where Newton would leave it), until a step is below the rounding of k.
 */
export function solveShape(t3: number): number {
  let lo = -1;
  let hi = 1;
  while (gevSkewness(hi) > t3) hi *= 2;
  let k = Math.min(Math.max(approximateShape(t3), lo + (hi - lo) * 1e-6), hi);
  for (let i = 0; i < 200; i++) {
    const r = gevSkewness(k) - t3;
    if (r === 0) return k;
    // Decreasing: a value above t3 means the root is further right.
    if (r > 0) lo = k;
    else hi = k;
    let next = k - r / gevSkewnessSlope(k);
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    const step = Math.abs(next - k);
    k = next;
    if (step <= 4 * Number.EPSILON * Math.max(Math.abs(k), 1) || hi - lo <= 4 * Number.EPSILON * Math.max(Math.abs(k), 1)) break;
  }
  return k;
}

// ---- the gamma function ----

/** Lanczos' coefficients for g = 7, nine terms: relative error about 1e-15 over the positive reals. */
const LANCZOS = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];

/** The gamma function for x > 0. */
export function gamma(x: number): number {
  // Reflection for small arguments, where the series is less accurate.
  if (x < 0.5) return Math.PI / (Math.sin(Math.PI * x) * gamma(1 - x));
  const z = x - 1;
  let a = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) a += LANCZOS[i]! / (z + i);
  const t = z + 7.5;
  return Math.sqrt(2 * Math.PI) * Math.pow(t, z + 0.5) * Math.exp(-t) * a;
}

const EULER_GAMMA = 0.5772156649015329;
/** zeta(2) .. zeta(10), for the series of log gamma(1 + k) near 0. */
const ZETA = [Math.PI ** 2 / 6, 1.2020569031595942, Math.PI ** 4 / 90, 1.0369277551433699, Math.PI ** 6 / 945, 1.0083492773819228, Math.PI ** 8 / 9450, 1.0020083928260822, Math.PI ** 10 / 93555];

/**
 * (1 - gamma(1 + k)) / k, which tends to Euler's gamma as k -> 0. Near 0 the difference would cancel:
 * there log gamma(1 + k) = -gamma k + sum over j >= 2 of (-1)^j zeta(j) k^j / j (to k^10, exact to
 * rounding for |k| < 0.02), and 1 - gamma(1 + k) = -expm1 of it.
 */
function oneMinusGammaOverK(k: number): number {
  if (k === 0) return EULER_GAMMA;
  if (Math.abs(k) < 0.02) {
    let lg = -EULER_GAMMA * k;
    let power = k;
    for (let j = 2; j <= 10; j++) {
      power *= k;
      lg += ((j % 2 === 0 ? 1 : -1) * ZETA[j - 2]! * power) / j;
    }
    return -Math.expm1(lg) / k;
  }
  return (1 - gamma(1 + k)) / k;
}

/**
 * The GEV whose L-moments are those of the values (at least 3, not all equal): shape from t3 (solveShape),
 * scale alpha = l2 k / ((1 - 2^-k) gamma(1 + k)), location xi = l1 - alpha (1 - gamma(1 + k)) / k.
 * Undefined when the values have no spread (l2 = 0) or an L-skewness no GEV has.
 */
export function fitGev(values: number[]): GevFit | undefined {
  return values.length < 3 ? undefined : gevOfLMoments(sampleLMoments(values));
}

/** The GEV with these L-moments (fitGev without the sample). */
export function gevOfLMoments({ l1, l2, t3 }: { l1: number; l2: number; t3: number }): GevFit | undefined {
  if (!(l2 > 0) || !(t3 > -1 && t3 < 1)) return undefined;
  const k = solveShape(t3);
  const g = k === 0 ? 1 : gamma(1 + k);
  const scale = l2 / (oneMinusPowOverK(k, LN2) * g);
  return { location: l1 - scale * oneMinusGammaOverK(k), scale, shape: k };
}

/** The level exceeded on average once in `years` years: the quantile at F = 1 - 1/years. */
export function returnLevel(fit: GevFit, years: number): number {
  const y = -Math.log1p(-1 / years);
  const { location, scale, shape: k } = fit;
  // (1 - y^k) / k, tending to -log y as k -> 0.
  const reduced = k === 0 ? -Math.log(y) : -Math.expm1(k * Math.log(y)) / k;
  return location + scale * reduced;
}

/**
 * The return period in years of `level` under the fit, 1 / (1 - F(level)): Infinity at or above the
 * upper bound of a k > 0 fit, 1 at or below the lower bound of a k < 0 fit.
 */
export function returnPeriodOf(fit: GevFit, level: number): number {
  const { location, scale, shape: k } = fit;
  const z = (level - location) / scale;
  let reduced: number;
  if (k === 0) reduced = z;
  else {
    const u = -k * z;
    if (u <= -1) return k > 0 ? Infinity : 1;
    reduced = -Math.log1p(u) / k;
  }
  // 1 - F = 1 - exp(-exp(-reduced)), without cancellation when F is close to 1.
  const exceedance = -Math.expm1(-Math.exp(-reduced));
  return exceedance === 0 ? Infinity : 1 / exceedance;
}
