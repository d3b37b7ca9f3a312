/**
 * A calibration's injected drills (docs/statistics.md, "What the gate's errors are on this runner"): each
 * pgbench workload run with a known CPU cost per transaction in head against the same script without it
 * (drill-workload.ts), sized from a short probe to drop throughput by 1.5x the workload's threshold
 * (drill-size.ts), then measured as a comparison is, with the calibration's rounds and durations, and judged
 * by the gate (decide(), fail-on regression): a cell it fails is caught, any other answer missed. The probe
 * and the drill are runs of their own, through the adapter's measurement, never saved to the store (they are
 * no run of the runner's history); their results files stay in the results directory.
 */
import type { PipelineOutcome, PipelineRequest } from '../compare/pipeline/pipeline.js';
import { makeTempDir } from '../../machine/os/cleanup.js';
import type { AnalysisSettings } from '../../core/results/result-types.js';
import { cellId } from '../../core/results/result-types.js';
import type { DrillCell, CalibrationRecord } from '../../core/results/calibration-record.js';
import { resolveAnalysis } from '../../core/compare/analysis/recorded-analysis.js';
import { decide } from '../../core/compare/decision/decision.js';
import { drillRecord } from '../../core/compare/decision/gate-record.js';
import type { PgbenchWorkload } from '../../drivers/pgbench/pgbench-workload.js';
import { completenessOf } from '../compare/pipeline/decide-run.js';
import {
  PROBE_DURATION_S,
  PROBE_ROUNDS,
  PROBE_ROWS,
  drillRows,
  drillTargetPct,
  probeRatios,
} from './drill-size.js';
import { DRILL_SUFFIX, drillArms, drillWorkload, undrillable } from './drill-workload.js';

export interface DrillOptions extends Pick<
  PipelineRequest,
  'workloads' | 'rounds' | 'durationS' | 'seed' | 'runAs' | 'tmpDir' | 'planCheck' | 'source'
> {
  binDir: string;
  analysis: Partial<AnalysisSettings>;
}

/** What one measurement is: the A/A run (saved to the store), or a drill's probe or run (never saved). */
export interface MeasureOptions {
  /** 'calibration', 'drill-probe' or 'drill': a name for its directory and log group. */
  name: string;
  /** Save it to the adapter's store (the A/A run only: a drill is no run of the runner's history). */
  store: boolean;
}

export interface DrillDeps {
  measure(request: Omit<PipelineRequest, 'runDir'>, options: MeasureOptions): Promise<PipelineOutcome>;
}

export interface DrillOutcome {
  /** What the gate did; absent when no drill ran (no workload could be drilled or sized, or it did not complete). */
  record?: NonNullable<CalibrationRecord['drills']>;
  /** Workloads that got no drill, with why. */
  skipped: string[];
  probe?: PipelineOutcome;
  run?: PipelineOutcome;
}

/** Probes, sizes and runs the drills of the workloads (see the module comment). */
export async function runDrills(options: DrillOptions, deps: DrillDeps): Promise<DrillOutcome> {
  const { binDir, analysis: given, workloads, ...run } = options;
  const analysis = resolveAnalysis(given);
  const skipped = workloads.flatMap((w) => undrillable(w) ?? []);
  const drilled = workloads.filter((w): w is PgbenchWorkload => w.tool === 'pgbench');
  if (drilled.length === 0) return { skipped };
  const { dir } = await makeTempDir('pgperf-drills-', run.tmpDir ? { parent: run.tmpDir } : {});
  const common = {
    arms: { kind: 'installed' as const, arms: drillArms(binDir) },
    analysis,
    order: 'random' as const,
    dataChecksums: false,
    // The drill is judged as the A/A run is: the same rounds, no confirmation block.
    confirmRounds: 0,
  };
  const probeDir = await makeTempDir('probe-', { parent: dir });
  const probe = await deps.measure(
    {
      ...run,
      ...common,
      workloads: await Promise.all(drilled.map((w) => drillWorkload(w, PROBE_ROWS, probeDir.dir))),
      rounds: PROBE_ROUNDS,
      durationS: Math.min(run.durationS ?? PROBE_DURATION_S, PROBE_DURATION_S),
      // The probe sizes the drill; it decides nothing, so no plan is refused for its 2 rounds.
      planCheck: 'warn',
    },
    { name: 'drill-probe', store: false },
  );
  const ratios = probeRatios(probe.result, 'base', 'drill');
  const sized: Array<{ workload: PgbenchWorkload; rows: number; targetPct: number }> = [];
  for (const w of drilled) {
    const ratio = ratios.get(`${w.name}${DRILL_SUFFIX}`);
    const targetPct = drillTargetPct(w.threshold ?? analysis.thresholdPct);
    const size =
      ratio === undefined
        ? { problem: 'the probe measured no usable run of it' }
        : drillRows({ probeRows: PROBE_ROWS, ratio, targetPct });
    if ('problem' in size) skipped.push(`${w.name}: not drilled (${size.problem})`);
    else sized.push({ workload: w, rows: size.rows, targetPct });
  }
  if (sized.length === 0) return { skipped, probe };
  const drillDir = await makeTempDir('drill-', { parent: dir });
  const measured = await deps.measure(
    {
      ...run,
      ...common,
      workloads: await Promise.all(sized.map((s) => drillWorkload(s.workload, s.rows, drillDir.dir))),
    },
    { name: 'drill', store: false },
  );
  const complete = completenessOf(measured.result);
  if (!complete.complete) {
    skipped.push(`the drill run did not complete (${complete.why ?? 'no reason given'}): no drill counted`);
    return { skipped, probe, run: measured };
  }
  const decision = decide(measured.comparison, { failOn: 'regression', workloads: {} }, complete);
  const cells: DrillCell[] = [];
  for (const s of sized) {
    const name = `${s.workload.name}${DRILL_SUFFIX}`;
    for (const clients of s.workload.clients) {
      const id = cellId({ workload: name, clients });
      const decided = decision.cells.filter((c) => c.id === id);
      const primary = decided.find((c) => c.metric === measured.comparison.metric) ?? decided[0];
      if (!primary) continue;
      cells.push({
        id: cellId({ workload: s.workload.name, clients }),
        injectedPct: s.targetPct,
        rows: s.rows,
        deltaPct: primary.deltaPct,
        verdict: primary.likelyRegression ? 'likely regression' : primary.verdict,
        caught: decided.some((c) => c.failsGate),
      });
    }
  }
  return { record: drillRecord(cells, skipped), skipped, probe, run: measured };
}
