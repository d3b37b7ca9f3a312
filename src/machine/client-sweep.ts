/**
 * `clients: auto`: the client-count sweep derived from the machine: 1, 2, 4, ... doubling up to twice
 * the logical CPUs, plus the logical CPU count and its double where they are not powers of two. That
 * covers the range PostgreSQL developers sweep (benchmarking notes, TL;DR 4: "from 1 up to about 2x
 * the logical CPU count") with one cell per doubling. Points around the measured knee are a later
 * refinement: they need a first sweep's results.
 *
 * Examples: 2 CPUs -> [1, 2, 4]; 48 -> [1, 2, 4, 8, 16, 32, 48, 64, 96]; 64 -> [1, 2, ..., 128].
 */
export function autoClientSweep(logicalCpus: number): number[] {
  if (!Number.isInteger(logicalCpus) || logicalCpus < 1) {
    throw new Error(`autoClientSweep: logicalCpus must be a positive integer, got ${logicalCpus}`);
  }
  const top = 2 * logicalCpus;
  const points = new Set<number>([logicalCpus, top]);
  for (let c = 1; c <= top; c *= 2) points.add(c);
  return [...points].sort((a, b) => a - b);
}
