/**
 * The noise design as `pgperf plan` prints it (flows/compare/noise/runner-design.ts computes it): a headline, where the rounds come
 * from (as a run's plan line says it: adaptive by default), one row per cell (its
 * noise, where it came from, the threshold, the rounds, what they resolve and the rounds the threshold needs),
 * then what each cell without noise lacks; or the design as JSON, where an unresolvable change is null.
 */
import type { NoiseDesign } from '../../compare/noise-design-types.js';
import { noiseSourceText } from '../noise-words.js';

export function renderNoiseDesign(p: NoiseDesign): string {
  const head =
    `noise of this runner (${p.runner}) from ${p.store}: alpha ${p.alpha}, ` +
    `${Math.round(p.power * 100)}% power, Holm over ${p.hypotheses} hypotheses`;
  const lines = [head, p.roundsText];
  if (p.cells.length === 0) {
    lines.push(
      '',
      'no stored noise for this runner: measure it with pgperf calibrate --bin DIR --workload FILE... (same store),',
      'or keep running nightly/PR comparisons into the store until each cell has a history',
    );
  } else {
    lines.push('', ...noiseTable(p));
  }
  // With nothing stored at all, one line names the cells; else each missing cell says what it lacks.
  if (p.cells.length === 0 && p.missing.length > 0) {
    lines.push(`cells without noise: ${p.missing.map((m) => m.id).join(', ')}`);
  } else {
    for (const m of p.missing) lines.push(`${m.id}: ${m.reason}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The cells' rows under their header, in aligned columns. */
function noiseTable(p: NoiseDesign): string[] {
  const pct = (v: number) => (Number.isFinite(v) ? `${v.toFixed(1)}%` : 'none');
  const rows = [
    [
      'cell',
      'noise/round',
      'planned with',
      'from',
      'threshold',
      'rounds',
      'resolves',
      'rounds for threshold',
    ],
    ...p.cells.map((c) => [
      c.id,
      pct(c.noise.perRoundCvPct),
      pct(c.noise.planningCvPct),
      noiseSourceText(c.noise),
      `${c.thresholdPct}%`,
      String(c.rounds),
      pct(c.resolvablePct),
      (c.recommendedRounds === null ? '>1000' : String(c.recommendedRounds)) +
        (c.belowResolvable ? '  (more than planned)' : ''),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}

/** The design as JSON (with the shard split when one was asked for too); JSON has no infinity: null. */
export function noiseDesignJson(p: NoiseDesign, shards?: object): string {
  return `${JSON.stringify({ ...p, ...(shards ? { shards } : {}) }, finite, 2)}\n`;
}

const finite = (_: string, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v);
