/**
 * Which run value is steadier on the real captures (test/fixtures/noisy-runner): pgbench's final TPS, or the
 * median of the per-second progress TPS after the first second? For each session, client count and arm it
 * prints the robust spread (1.4826·MAD of ln) and the SD of ln over the rounds for both values, and, for the
 * A/A pairs of session 1, the SD of the per-round ln(head/base), which is what the paired test sees.
 * The lower spread wins; the paired spread decides, because that is the primary test's noise.
 *
 * Run: npx tsx bench/run-value.ts
 */
import { runValue } from '../src/core/compare/cell-runs.js';
import { robustLogSpread } from '../src/core/stats/robust-log-spread.js';
import { noisyRunnerRuns, noisySample } from '../testkit/noisy-runner.js';

const runs = noisyRunnerRuns();
const sd = (x: number[]) => {
  const m = x.reduce((a, b) => a + b, 0) / x.length;
  return Math.sqrt(x.reduce((a, b) => a + (b - m) ** 2, 0) / (x.length - 1));
};
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const values = (kind: 'final' | 'progress-median', rs: typeof runs) =>
  rs.map((r) => runValue(noisySample(r), 'tps', kind));

console.log(
  '| session | clients | arm | rounds | final: robust / SD of ln | progress median: robust / SD of ln |',
);
console.log('|---|---|---|---|---|---|');
for (const session of [1, 2]) {
  for (const clients of [1, 2]) {
    for (const arm of ['base', 'base-rebuilt']) {
      const rs = runs.filter((r) => r.session === session && r.clients === clients && r.arm === arm);
      if (rs.length === 0) continue;
      const f = values('final', rs);
      const p = values('progress-median', rs);
      console.log(
        `| ${session} | ${clients} | ${arm} | ${rs.length} | ${pct(robustLogSpread(f))} / ${pct(sd(f.map(Math.log)))} | ` +
          `${pct(robustLogSpread(p))} / ${pct(sd(p.map(Math.log)))} |`,
      );
    }
  }
}
console.log("\nSession 1 A/A pairs, SD of ln(base-rebuilt / base) per round (the paired test's noise):");
for (const clients of [1, 2]) {
  const ratios = (kind: 'final' | 'progress-median') =>
    Array.from({ length: 10 }, (_, i) => {
      const r = runs.filter((x) => x.session === 1 && x.round === i + 1 && x.clients === clients);
      const [b] = values(
        kind,
        r.filter((x) => x.arm === 'base'),
      );
      const [h] = values(
        kind,
        r.filter((x) => x.arm === 'base-rebuilt'),
      );
      return Math.log(h! / b!);
    });
  const f = ratios('final');
  const p = ratios('progress-median');
  console.log(
    `  ${clients} client(s): final ${pct(sd(f))} (robust ${pct(robustLogSpread(f.map(Math.exp)))}), ` +
      `progress median ${pct(sd(p))} (robust ${pct(robustLogSpread(p.map(Math.exp)))})`,
  );
}
