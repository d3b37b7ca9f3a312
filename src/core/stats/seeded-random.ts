/**
 * A seeded pseudo-random generator of uniform numbers in [0, 1), so bootstraps and simulations are
 * reproducible run to run (an unseeded bootstrap gives a different CI every time it is rendered).
 *
 * Algorithm: xoshiro128** 1.1 (Blackman & Vigna, "Scrambled linear pseudorandom number generators", ACM TOMS
 * 47 (2021)), period 2¹²⁸ − 1, its 128-bit state filled from the seed by SplitMix32 as the authors recommend.
 * Not cryptographic.
 *
 * Complexity: O(1) per draw. Throws: never; any number is accepted as a seed (it is reduced to 32 bits).
 *
 * @example const random = seededRandom(42); random(); // the same first draw for every run with seed 42
 */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  const splitMix32 = (): number => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitMix32();
  let b = splitMix32();
  let c = splitMix32();
  let d = splitMix32();
  return () => {
    const result = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return result / 4294967296;
  };
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
