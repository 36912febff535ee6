import { describe, expect, it } from 'vitest';
import { approximateShape, fitGev, gamma, gevOfLMoments, gevSkewness, returnLevel, returnPeriodOf, sampleLMoments, solveShape } from '../src/indicators/returnLevels/gev.js';
import { modelReturnLevels } from '../src/indicators/returnLevels/modelLevels.js';
import type { ReturnLevelPlan } from '../src/indicators/returnLevels/params.js';

/**
 * The GEV fit by L-moments (src/indicators/returnLevels/gev.ts) against published numbers and
 * exact cases. Published: Hosking (1990, J. R. Statist. Soc. B 52, Table 1) gives the Gumbel
 * distribution (the GEV with k = 0) L-skewness 0.1699 and lambda2 = alpha log 2; Hosking, Wallis
 * and Wood (1985, Technometrics 27, p. 253) give their approximation k = 7.8590c + 2.9554c^2,
 * c = 2/(3 + t3) - log 2/log 3, an error below 0.0009 for -0.5 <= k <= 0.5. A worked example with its
 * data: the lmoments3 package (OpenHydrology/lmoments3 on GitHub; lmoments3.readthedocs.io) prints an
 * 11-value sample and its L-moments in its tutorial (docs/source/tutorial.rst, "Estimate L-moments
 * from sample data"), and its GEV fit, quantiles and distribution function in its test suite
 * (lmoments3/tests/test_lmoments.py, class TestGev; scipy's shape c, which is Hosking's k).
 */

describe('the GEV fitted by L-moments', () => {
  it("has the Gumbel's published L-skewness at k = 0, and solves back to k = 0 from it", () => {
    expect(gevSkewness(0).toFixed(4)).toBe('0.1699');
    expect(gevSkewness(0)).toBe(2 * Math.log(3) / Math.log(2) - 3);
    expect(Math.abs(solveShape(gevSkewness(0)))).toBeLessThan(1e-15);
    // lambda2 = alpha log 2 at k = 0: a fit to L-moments (l1, l2, 0.1699...) has scale l2 / log 2 and location l1 - 0.5772 alpha.
    const fit = gevOfLMoments({ l1: 10, l2: 2, t3: gevSkewness(0) })!;
    expect(fit.scale).toBeCloseTo(2 / Math.log(2), 12);
    expect(fit.location).toBeCloseTo(10 - 0.5772156649015329 * (2 / Math.log(2)), 12);
  });

  it("starts from Hosking, Wallis and Wood's approximation, within its published 0.0009 for -0.5 <= k <= 0.5", () => {
    let worst = 0;
    for (let k = -0.5; k <= 0.5 + 1e-12; k += 0.005) worst = Math.max(worst, Math.abs(approximateShape(gevSkewness(k)) - k));
    expect(worst).toBeLessThan(0.0009);
    expect(worst).toBeGreaterThan(0.0005);
  });

  it('solves the shape to full precision, where the approximation is off by far more', () => {
    for (const k of [-0.95, -0.6, -0.2, -1e-9, 1e-9, 0.01, 0.3, 0.8, 2, 6]) {
      const t3 = gevSkewness(k);
      expect(Math.abs(solveShape(t3) - k), `k = ${k}`).toBeLessThan(8 * Number.EPSILON * Math.max(1, Math.abs(k)));
      expect(Math.abs(gevSkewness(solveShape(t3)) - t3)).toBeLessThan(4 * Number.EPSILON);
    }
    expect(Math.abs(approximateShape(gevSkewness(-0.9)) + 0.9)).toBeGreaterThan(0.01);
  });

  it("recovers a GEV's parameters from its population L-moments (lambda1, lambda2, tau3 as Hosking 1990 gives them)", () => {
    for (const [xi, alpha, k] of [[10, 2, -0.3], [0, 1, 0.2], [-40, 5, 0.05], [300, 0.01, -0.005]] as const) {
      const g = gamma(1 + k);
      const l1 = xi + (alpha * (1 - g)) / k;
      const l2 = (alpha * (1 - Math.pow(2, -k)) * g) / k;
      const fit = gevOfLMoments({ l1, l2, t3: gevSkewness(k) })!;
      expect(Math.abs(fit.shape - k)).toBeLessThan(1e-14);
      expect(Math.abs(fit.scale - alpha) / alpha).toBeLessThan(1e-12);
      expect(Math.abs(fit.location - xi)).toBeLessThan(1e-12 * Math.max(1, Math.abs(xi)) + 1e-12 * alpha);
    }
  });

  it('has the gamma function to about 1e-15', () => {
    expect(gamma(5)).toBeCloseTo(24, 13);
    expect(Math.abs(gamma(0.5) - Math.sqrt(Math.PI))).toBeLessThan(1e-15);
    expect(Math.abs(gamma(1.5) - Math.sqrt(Math.PI) / 2)).toBeLessThan(1e-15);
    // Gamma(1/3), a known constant.
    expect(Math.abs(gamma(1 / 3) - 2.678938534707747633) / 2.678938534707747633).toBeLessThan(2e-15);
  });

  it('takes sample L-moments from the unbiased probability-weighted moments: those of 1..5 are 3, 1, 0', () => {
    const { l1, l2, t3 } = sampleLMoments([5, 3, 1, 4, 2]);
    expect(l1).toBe(3);
    expect(l2).toBeCloseTo(1, 15);
    expect(t3).toBeCloseTo(0, 15);
  });

  it('gives return levels and their inverse, the return period of a level, both ways', () => {
    const fit = fitGev([10.2, 11.5, 9.8, 14.1, 12.3, 10.9, 13.7, 11.1, 9.5, 15.2, 12.8, 10.4, 11.9, 13.1, 10.0, 12.0, 11.4, 16.3, 9.9, 12.5])!;
    for (const years of [2, 20, 100, 1000]) expect(returnPeriodOf(fit, returnLevel(fit, years))).toBeCloseTo(years, 8);
    // Beyond the upper bound of a k > 0 fit: never; below the lower bound of a k < 0 fit: every year.
    expect(returnPeriodOf({ location: 0, scale: 1, shape: 0.5 }, 2.5)).toBe(Infinity);
    expect(returnPeriodOf({ location: 0, scale: 1, shape: -0.5 }, -2.5)).toBe(1);
    // The Gumbel's: x(F) = xi - alpha log(-log F).
    expect(returnLevel({ location: 1, scale: 2, shape: 0 }, 100)).toBeCloseTo(1 - 2 * Math.log(-Math.log(0.99)), 14);
    // No spread, no fit.
    expect(fitGev(Array(25).fill(3))).toBeUndefined();
  });
});

describe("lmoments3's published example", () => {
  // lmoments3, docs/source/tutorial.rst: data = [2.0, 3.0, 4.0, 2.4, 5.5, 1.2, 5.4, 2.2, 7.1, 1.3, 1.5];
  // lm.lmom_ratios(data, nmom=5) -> [3.2363636363636363, 1.1418181818181818, 0.27388535031847133, ...].
  const data = [2.0, 3.0, 4.0, 2.4, 5.5, 1.2, 5.4, 2.2, 7.1, 1.3, 1.5];

  it('has the published sample L-moments l1, l2 and t3', () => {
    const { l1, l2, t3 } = sampleLMoments(data);
    expect(Math.abs(l1 - 3.2363636363636363)).toBeLessThan(1e-14);
    expect(Math.abs(l2 - 1.1418181818181818)).toBeLessThan(1e-14);
    expect(Math.abs(t3 - 0.27388535031847133)).toBeLessThan(1e-14);
  });

  it('fits the published GEV and gives its published quantiles and probabilities, within a unit of the last digit printed', () => {
    // lmoments3/tests/test_lmoments.py, TestGev: correct_fit = [2.1792884, 1.3956404, -0.1555609] (loc, scale, c);
    // correct_qua at F = 0.2, 0.5, 0.8 = [1.539112, 2.705672, 4.537048]; correct_cdf at 2, 5, 8 = [0.3202800, 0.8415637, 0.9606184].
    const fit = fitGev(data)!;
    // (lmoments3 takes the shape from Hosking's rational approximation, this fit solves it exactly:
    // the scale differs by 8e-8, the others by less than half a unit of the last digit.)
    expect(Math.abs(fit.location - 2.1792884)).toBeLessThan(1e-7);
    expect(Math.abs(fit.scale - 1.3956404)).toBeLessThan(1e-7);
    expect(Math.abs(fit.shape - -0.1555609)).toBeLessThan(1e-7);
    // The quantile at F is the return level of 1 / (1 - F) years: F = 0.5 and 0.8 are the 2- and 5-year levels.
    expect(Math.abs(returnLevel(fit, 2) - 2.705672)).toBeLessThan(1e-6);
    expect(Math.abs(returnLevel(fit, 5) - 4.537048)).toBeLessThan(1e-6);
    // F = 0.2 is a return period of 1.25 years.
    expect(Math.abs(returnLevel(fit, 1.25) - 1.539112)).toBeLessThan(1e-6);
    const cdf = (x: number) => 1 - 1 / returnPeriodOf(fit, x);
    expect(Math.abs(cdf(2) - 0.32028)).toBeLessThan(1e-7);
    expect(Math.abs(cdf(5) - 0.8415637)).toBeLessThan(1e-7);
    expect(Math.abs(cdf(8) - 0.9606184)).toBeLessThan(1e-7);
  });
});

describe("the models' return levels", () => {
  const plan = (over: Partial<ReturnLevelPlan> = {}): ReturnLevelPlan => ({
    extreme: 'maximum',
    periods: [20],
    inverse: false,
    includeFit: false,
    window: { scenario: { name: 'RCP85' } as never, years: Array.from({ length: 25 }, (_, i) => 2001 + i), json: {} },
    ...over,
  });
  const series = (n: number, f: (i: number) => number) => ({ ids: Array.from({ length: n }, (_, i) => 2001 + i), vals: Array.from({ length: n }, (_, i) => f(i)) });
  const wavy = (i: number) => 10 + Math.sin(i * 1.7) * 3 + (i % 7);

  it('leaves out and names a model with fewer than 20 years, one without spread and one without values', () => {
    const a = series(25, wavy);
    const short = series(19, wavy);
    const flat = series(25, () => 4);
    const rows = { models: ['A', 'SHORT', 'FLAT'], ids: [a.ids, short.ids, flat.ids], vals: [a.vals, short.vals, flat.vals] };
    const out = modelReturnLevels(rows, { returnLevels: plan({ includeFit: true }), models: ['A', 'SHORT', 'FLAT', 'NONE'], aggs: ['min', 'max'], baseline: false });
    expect(out.withoutFit.map((m) => m.model)).toEqual(['SHORT', 'FLAT', 'NONE']);
    expect(out.fits!.window.map(([m]) => m.model)).toEqual(['A']);
    const level = returnLevel(fitGev(a.vals)!, 20);
    expect(out.periods).toEqual([{ period: '20', stats: [['min', level], ['max', level]] }]);
  });
});
