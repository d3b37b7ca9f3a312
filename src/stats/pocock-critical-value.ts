import { normalQuantile } from './normal-quantile.js';

/**
 * Pocock's constant critical value c for a group-sequential test with `looks` equally spaced analyses:
 * rejecting at the first look k with |Z_k| ≥ c has overall two-sided type I error `alpha`. The nominal
 * per-look level is 2·(1 − Φ(c)), e.g. 0.0294, 0.0221, 0.0182, 0.0158 for 2–5 looks at α = 0.05. Testing
 * every look at α instead ("re-run until significant") doubles the false-alarm rate.
 *
 * Method: under H₀ the partial sums S_k = √k·Z_k are a Gaussian random walk with unit increments. The
 * sub-density of S_k on the continuation region |s| < c√k is propagated look by look,
 * g_k(s) = ∫ g_{k−1}(u)·φ(s − u) du, by Simpson's rule on GRID_INTERVALS intervals (Armitage, McPherson &
 * Rowe, J. R. Statist. Soc. A 132 (1969) 235-244; Jennison & Turnbull, Group Sequential Methods, 2000,
 * ch. 19), and c solves P(cross by look K) = α by the Illinois variant of regula falsi, bracketed by the
 * single-look and Bonferroni values. Agrees with Pocock's published constants (Biometrika 64 (1977) 191-199;
 * Jennison & Turnbull Table 2.1) to their 3 decimals.
 *
 * Complexity: O(K·G²) per evaluation, ~10 evaluations, memoised per (looks, alpha). Throws: RangeError unless
 * looks is an integer in 1…MAX_LOOKS and 0 < alpha < 1.
 *
 * @example pocockCriticalValue(3, 0.05) // 2.289…, per-look α = 0.0221
 */
export function pocockCriticalValue(looks: number, alpha: number): number {
  if (!Number.isInteger(looks) || looks < 1 || looks > MAX_LOOKS || !(alpha > 0 && alpha < 1)) {
    throw new RangeError(
      `Pocock boundary needs 1 ≤ looks ≤ ${MAX_LOOKS} and 0 < alpha < 1, got ${looks}, ${alpha}`,
    );
  }
  const key = `${looks}:${alpha}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  let lo = normalQuantile(1 - alpha / 2); // one look: crossing probability ≥ alpha
  let hi = normalQuantile(1 - alpha / (2 * looks)); // Bonferroni: crossing probability ≤ alpha
  let c = lo;
  if (looks > 1) {
    let fLo = crossingProbability(lo, looks) - alpha;
    let fHi = crossingProbability(hi, looks) - alpha;
    let side = 0;
    for (let i = 0; i < MAX_ITERATIONS && hi - lo > TOLERANCE; i++) {
      c = (lo * fHi - hi * fLo) / (fHi - fLo);
      const f = crossingProbability(c, looks) - alpha;
      if (f > 0) {
        lo = c;
        fLo = f;
        if (side === 1) fHi /= 2; // Illinois: halve the stale end so the bracket shrinks from both sides
        side = 1;
      } else {
        hi = c;
        fHi = f;
        if (side === -1) fLo /= 2;
        side = -1;
      }
      if (f === 0) break;
    }
  }
  cache.set(key, c);
  return c;
}

/** P(|S_k| ≥ c√k for some k ≤ looks) under H₀. */
function crossingProbability(c: number, looks: number): number {
  let points = new Float64Array(0);
  let density = new Float64Array(0);
  let weights = new Float64Array(0);
  for (let k = 1; k <= looks; k++) {
    const bound = c * Math.sqrt(k);
    const h = (2 * bound) / GRID_INTERVALS;
    const nextPoints = new Float64Array(GRID_INTERVALS + 1);
    const nextDensity = new Float64Array(GRID_INTERVALS + 1);
    const nextWeights = new Float64Array(GRID_INTERVALS + 1);
    for (let j = 0; j <= GRID_INTERVALS; j++) {
      const s = -bound + j * h;
      nextPoints[j] = s;
      nextWeights[j] = ((j === 0 || j === GRID_INTERVALS ? 1 : j % 2 === 1 ? 4 : 2) * h) / 3;
      if (k === 1) {
        nextDensity[j] = phi(s);
      } else {
        let sum = 0;
        for (let i = 0; i < points.length; i++) sum += weights[i]! * density[i]! * phi(s - points[i]!);
        nextDensity[j] = sum;
      }
    }
    points = nextPoints;
    density = nextDensity;
    weights = nextWeights;
  }
  let continuing = 0;
  for (let j = 0; j < points.length; j++) continuing += weights[j]! * density[j]!;
  return 1 - continuing;
}

function phi(x: number): number {
  return Math.exp(-0.5 * x * x) * INV_SQRT_2PI;
}

/** Group-sequential designs beyond 10 looks are not used here and cost O(K·G²) each. */
export const MAX_LOOKS = 10;
/** Simpson intervals per look (even); the quadrature error is ~1e-7 in the crossing probability. */
const GRID_INTERVALS = 160;
const MAX_ITERATIONS = 60;
const TOLERANCE = 1e-9;
const INV_SQRT_2PI = 0.3989422804014327;
const cache = new Map<string, number>();
