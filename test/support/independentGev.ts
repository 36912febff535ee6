/**
 * The GEV by L-moments computed independently of the service, for the tests of return levels:
 * L-moments from their definition over all pairs and triples of order statistics, the shape by
 * bisection, the gamma function by Stirling's series, and the GEV quantile and distribution function
 * as printed in Hosking and Wallis (1997, A.5); none of it shares code with src/.
 */

/** Sample L-moments from their definition: l2 and l3 as averages over all pairs and triples of the sorted sample (Hosking 1990, section 2.5). */
function lMoments(values: number[]) {
  const x = [...values].sort((a, b) => a - b);
  const n = x.length;
  let l1 = 0;
  for (const v of x) l1 += v / n;
  let pairs = 0;
  let sum2 = 0;
  let triples = 0;
  let sum3 = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      pairs++;
      sum2 += x[j]! - x[i]!;
      for (let k = j + 1; k < n; k++) {
        triples++;
        sum3 += x[k]! - 2 * x[j]! + x[i]!;
      }
    }
  }
  const l2 = sum2 / pairs / 2;
  const l3 = sum3 / triples / 3;
  return { l1, l2, t3: l3 / l2 };
}

/** log gamma by Stirling's series, shifted up past 10 by the recurrence. */
function logGamma(x: number): number {
  let shift = 0;
  while (x < 10) {
    shift += Math.log(x);
    x += 1;
  }
  const z = 1 / (x * x);
  const series = (1 / x) * (1 / 12 - z * (1 / 360 - z * (1 / 1260 - z * (1 / 1680 - z / 1188))));
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + series - shift;
}

const tau3 = (k: number) => (2 * (1 - Math.pow(3, -k))) / (1 - Math.pow(2, -k)) - 3;

/** The GEV of those L-moments: the shape by bisection of tau3 (decreasing in k), then scale and location. */
export function gevOf(values: number[]) {
  const { l1, l2, t3 } = lMoments(values);
  let lo = -0.999;
  let hi = 20;
  for (let i = 0; i < 300; i++) {
    const mid = (lo + hi) / 2;
    if (tau3(mid) > t3) lo = mid;
    else hi = mid;
  }
  const k = (lo + hi) / 2;
  const g = Math.exp(logGamma(1 + k));
  const alpha = (l2 * k) / ((1 - Math.pow(2, -k)) * g);
  return { location: l1 - (alpha * (1 - g)) / k, scale: alpha, shape: k };
}

export type Gev = ReturnType<typeof gevOf>;
/** x(F) = xi + alpha (1 - (-log F)^k) / k at F = 1 - 1/T. */
export const quantile = (f: Gev, years: number) => f.location + (f.scale * (1 - Math.pow(-Math.log(1 - 1 / years), f.shape))) / f.shape;
/** 1 / (1 - F(x)), F(x) = exp(-(1 - k (x - xi) / alpha)^(1/k)); beyond the bound of a k > 0 fit, never. */
export function recurrence(f: Gev, x: number): number {
  const u = 1 - (f.shape * (x - f.location)) / f.scale;
  if (u <= 0) return f.shape > 0 ? Infinity : 1;
  return 1 / (1 - Math.exp(-Math.pow(u, 1 / f.shape)));
}
