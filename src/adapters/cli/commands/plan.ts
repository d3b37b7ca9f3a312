import { Command } from 'commander';
import { DEFAULT_POWER, DEFAULT_THRESHOLD_PCT } from '../../../core/compare/defaults.js';
import { loadWorkloads } from '../../../drivers/load-workload.js';
import type { Workload } from '../../../drivers/workload.js';
import { captureEnvironment } from '../../../machine/environment.js';
import { planShards, type ShardPlan } from '../../../run/shards.js';
import { resolveAnalysis } from '../../../flows/compare/analysis.js';
import { metricOption } from '../../../core/compare/metric-option.js';
import { noiseSourceText, resolutionOf, type CellResolution } from '../../../flows/compare/noise-plan.js';
import { planReach } from '../../../flows/compare/plan-check.js';
import { loadRunnerNoise, runnerId, type MissingNoise } from '../../../flows/compare/runner-noise.js';
import { UserError, errorMessage } from '../../../core/util/errors.js';
import { consoleLogger } from '../../../core/util/logger.js';
import { addAnalysisOptions, analysisFromFlags, type AnalysisFlags } from '../analysis-flags.js';
import { clientCounts, positiveInt, workloadOptionHelp } from '../options.js';
import { CLIENTS, CLIENT_COUNTS, DURATION_S, ROUNDS, rangeText } from '../../../core/bounds.js';
import { STORE_OPTION_HELP, openCliStore } from '../store-option.js';

interface PlanFlags extends AnalysisFlags {
  workload: string[];
  clients?: number[];
  shards?: number;
  rounds?: number;
  duration?: number;
  arms: number;
  store?: string;
  json?: boolean;
}

/**
 * `pgperf plan --workload FILE... [--clients LIST] [--store S] [--threshold PCT] [--alpha A] [--shards N] [--json]`: per cell
 * this runner's noise (from the store: its newest A/A calibration, else its history), the rounds the
 * threshold needs and the smallest change the planned rounds resolve; with --shards the deterministic split
 * of the cells over N machines (`run --shard I/N`), and only that unless --store is given too.
 */
export function planCommand(): Command {
  const command = new Command('plan')
    .description(
      "plan a comparison: this runner's noise per cell, the rounds a threshold needs and the smallest change the planned rounds resolve; with --shards, the split over machines",
    )
    .requiredOption('--workload <file|name...>', workloadOptionHelp())
    .option(
      '--clients <list>',
      `client counts for every workload instead of its own, as run --clients (e.g. 1,4,64; each ${rangeText(CLIENTS)}, at most ${CLIENT_COUNTS.max})`,
      clientCounts('--clients'),
    )
    .option('--store <dir|url>', STORE_OPTION_HELP)
    .option('--shards <n>', 'split the cells into N shards (see run --shard)', positiveInt('--shards'))
    .option(
      '--rounds <n>',
      `rounds (overrides the workloads'); ${rangeText(ROUNDS)}`,
      positiveInt('--rounds', ROUNDS),
    )
    .option(
      '--duration <seconds>',
      `seconds per run (overrides the workloads'); ${rangeText(DURATION_S)}`,
      positiveInt('--duration', DURATION_S),
    )
    .option('--arms <n>', 'arms per cell (default 2)', positiveInt('--arms'), 2)
    .option('--json', 'print the plan as JSON');
  return addAnalysisOptions(command, 'run').action(async (flags: PlanFlags) => {
    const workloads: Workload[] = [];
    const loaded = [];
    for (const file of flags.workload) loaded.push(...(await loadWorkloads(file, { what: '--workload' })));
    for (const w of loaded) {
      workloads.push({
        ...w,
        clients: flags.clients ? [...flags.clients] : w.clients,
        rounds: flags.rounds ?? w.rounds,
        duration: flags.duration ?? w.duration,
      });
    }
    let shards: ShardPlan | undefined;
    if (flags.shards !== undefined) {
      try {
        shards = planShards(workloads, flags.shards, flags.arms);
      } catch (e) {
        throw new UserError(`--shards ${flags.shards}: ${errorMessage(e)}`);
      }
      // --shards alone is the split as before (a matrix job computes it with no store at hand).
      if (flags.store === undefined) {
        process.stdout.write(flags.json ? `${JSON.stringify(shards, null, 2)}\n` : renderShards(shards));
        return;
      }
    }
    const noise = await noisePlan(workloads, flags);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify({ ...noise, ...(shards ? { shards } : {}) }, finite, 2)}\n`);
      return;
    }
    process.stdout.write(renderNoisePlan(noise) + (shards ? `\n${renderShards(shards)}` : ''));
  });
}

interface NoisePlan {
  /** The runner id noise was looked up for (this machine). */
  runner: string;
  store: string;
  alpha: number;
  power: number;
  /** Hypotheses Holm adjusts over. */
  hypotheses: number;
  cells: Array<CellResolution & { id: string }>;
  missing: MissingNoise[];
}

async function noisePlan(workloads: Workload[], flags: PlanFlags): Promise<NoisePlan> {
  const logger = consoleLogger({ verbose: false });
  const settings = resolveAnalysis(analysisFromFlags(flags));
  const reach = planReach({
    workloads,
    arms: flags.arms,
    alpha: settings.alpha,
    singleMetric: metricOption(settings) !== undefined,
  });
  const cells = workloads.flatMap((w) => w.clients.map((clients) => ({ workload: w.name, clients })));
  const runner = runnerId(await captureEnvironment(''));
  const store = await openCliStore(flags.store, logger, false);
  try {
    const noise = await loadRunnerNoise(store, runner, cells);
    return {
      runner,
      store: store.description,
      alpha: settings.alpha,
      power: DEFAULT_POWER,
      hypotheses: reach.familySize,
      cells: noise.cells.map((n) => {
        const w = workloads.find((x) => x.name === n.workload)!;
        const r = resolutionOf(n, {
          rounds: w.rounds,
          hypotheses: reach.familySize,
          alpha: settings.alpha,
          thresholdPct: flags.threshold ?? w.threshold ?? DEFAULT_THRESHOLD_PCT,
        });
        return { id: n.id, ...r };
      }),
      missing: noise.missing,
    };
  } finally {
    await store.close();
  }
}

function renderNoisePlan(p: NoisePlan): string {
  const head =
    `noise of this runner (${p.runner}) from ${p.store}: alpha ${p.alpha}, ` +
    `${Math.round(p.power * 100)}% power, Holm over ${p.hypotheses} hypotheses`;
  const lines = [head];
  if (p.cells.length === 0) {
    lines.push(
      '',
      'no stored noise for this runner: measure it with pgperf calibrate --bin DIR --workload FILE... (same store),',
      'or keep running nightly/PR comparisons into the store until each cell has a history',
    );
  } else {
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
    lines.push(
      '',
      ...rows.map((r) =>
        r
          .map((v, i) => v.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      ),
    );
  }
  // With nothing stored at all, one line names the cells; else each missing cell says what it lacks.
  if (p.cells.length === 0 && p.missing.length > 0) {
    lines.push(`cells without noise: ${p.missing.map((m) => m.id).join(', ')}`);
  } else {
    for (const m of p.missing) lines.push(`${m.id}: ${m.reason}`);
  }
  return `${lines.join('\n')}\n`;
}

function renderShards(plan: ShardPlan): string {
  const total = plan.shards.reduce((t, s) => t + s.estimatedS, 0);
  const longest = Math.max(...plan.shards.map((s) => s.estimatedS));
  const lines = [
    `plan ${plan.planId}: ${plan.count} shards, longest ${minutes(longest)} (${minutes(total)} on one machine)`,
  ];
  for (const s of plan.shards) {
    const cells = s.cells.map((c) => `${c.workload}@${c.clients}`).join(', ');
    lines.push(`  shard ${s.index}/${plan.count}  ${minutes(s.estimatedS).padStart(8)}  ${cells}`);
  }
  return `${lines.join('\n')}\n`;
}

/** JSON has no infinity: an unresolvable change is null. */
const finite = (_: string, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v);

const minutes = (s: number) => `${(s / 60).toFixed(1)} min`;
