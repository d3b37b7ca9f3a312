/**
 * The embedded default comparison (`pgperf demo`, the quick start): one real comparison on the installed
 * PostgreSQL, two arms that differ in one setting with a large, well-known effect (synchronous_commit on
 * vs off on tpcb-like writes), and what to say about it as values (src/core/report/terminal/demo-text.ts
 * says them).
 */
import { readdir } from 'node:fs/promises';
import { DEFAULT_THRESHOLD_PCT } from '../../core/compare/defaults.js';
import { checkDesign } from '../../core/compare/power.js';
import type { DemoNext, DemoThreshold } from '../../core/report/terminal/demo-text.js';
import { UserError } from '../../core/util/errors.js';
import { probeOptions, type ProcessRunner } from '../../machine/os/process.js';
import { workloadSchema } from '../../drivers/workload.js';
import type { ArmSpec } from '../../run/run-request.js';

/** The demo's practical threshold (%): what its 5 rounds resolve at the assumed 2% run-to-run noise. */
const DEMO_THRESHOLD_PCT = 10;

/**
 * The demo's workload: tpcb-like writes at 1 and 4 clients, in fixed rounds (the demo runs its request
 * directly, never adaptive: it must stay about two minutes).
 */
export const DEMO_WORKLOAD = fixedRounds(
  workloadSchema.parse({
    name: 'demo-tpcb-like',
    description: 'tpcb-like writes at 1 and 4 clients; the arms differ only in synchronous_commit',
    tool: 'pgbench',
    builtin: 'tpcb-like',
    scale: 4,
    clients: [1, 4],
    duration: 3,
    warmup: 2,
    // Five rounds: the fewest for which an exact rank test over two cells can reach p < 0.05 after Holm (the
    // unpaired one: five pairs cannot, so Mann-Whitney decides and each cell's note says so).
    rounds: 5,
    // The threshold the demo's rounds resolve: a several-fold effect needs no 2% resolution, and the 2% default
    // would make the power check warn (live, and again in the report) about 23 rounds the demo never plans.
    threshold: DEMO_THRESHOLD_PCT,
  }),
);

/** The workload with the rounds its definition sets, as a number. */
function fixedRounds<W extends { rounds?: number | undefined }>(w: W): W & { rounds: number } {
  if (w.rounds === undefined) throw new Error('the demo workload sets its rounds');
  return { ...w, rounds: w.rounds };
}

/**
 * The demo's two arms: the first is base, the other head, as in every comparison. head turns
 * synchronous_commit off, so a commit returns before its WAL reaches the disk: faster by how long the
 * disk's flush takes.
 */
export const DEMO_ARMS = {
  base: {
    label: 'sync-on',
    settings: {} as Record<string, string>,
    says: 'synchronous_commit=on, the default',
  },
  head: { label: 'sync-off', settings: { synchronous_commit: 'off' }, says: 'synchronous_commit=off' },
} as const;

/** The demo's arms on one install: base with the defaults, head with synchronous_commit off. */
export function demoArms(binDir: string): ArmSpec[] {
  return [
    { label: DEMO_ARMS.base.label, binDir, settings: { ...DEMO_ARMS.base.settings } },
    { label: DEMO_ARMS.head.label, binDir, settings: { ...DEMO_ARMS.head.settings } },
  ];
}

/** Where `pgperf history` writes the site the demo's first next step makes. */
export const DEMO_HISTORY_DIR = 'pgperf-history';

/**
 * What the demo says to run next. Saved to the store: the stored runs as a site (`pgperf history`, on the
 * store the demo used: the same --store, or none for the default and $PGPERF_STORE); not saved, or saved to
 * a URL whose password the terminal must not show: the mail reply of this run's results.
 */
export function demoNext(next: {
  /** The store the run was saved to, if it was: the --store value as given (undefined: the default). */
  saved: { store: string | undefined } | undefined;
  resultsFile: string;
}): DemoNext {
  const store = next.saved?.store;
  const secret = store !== undefined && /^[a-z]+:\/\/[^/@]*:[^/@]*@/i.test(store);
  return next.saved && !secret
    ? { kind: 'history', store, out: DEMO_HISTORY_DIR }
    : { kind: 'mail', resultsFile: next.resultsFile };
}

/**
 * Why the demo's threshold is not the default, said once rather than as a power warning: the rounds the
 * default would need at the assumed noise, against the rounds the demo runs.
 */
export function demoThreshold(rounds: number): DemoThreshold {
  const plan = checkDesign({
    rounds,
    cells: DEMO_WORKLOAD.clients.length,
    thresholdPct: DEFAULT_THRESHOLD_PCT,
  });
  return {
    thresholdPct: DEMO_THRESHOLD_PCT,
    defaultPct: DEFAULT_THRESHOLD_PCT,
    recommendedRounds: plan.recommendedRounds,
    noiseCvPct: plan.noiseCvPct,
    rounds,
  };
}

/** The installed server's bin dir: the newest /usr/lib/postgresql/N/bin (Debian), else pg_config's. */
export async function findInstalledBinDir(runner: ProcessRunner): Promise<string> {
  const versions = await readdir('/usr/lib/postgresql').catch(() => [] as string[]);
  const newest = versions.filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a))[0];
  if (newest) return `/usr/lib/postgresql/${newest}/bin`;
  const res = await runner.run('pg_config', ['--bindir'], probeOptions());
  if (res.exitCode === 0 && res.stdout.trim()) return res.stdout.trim();
  throw new UserError(
    'demo: no installed PostgreSQL found (nothing under /usr/lib/postgresql, no pg_config); run `bash scripts/setup.sh` or pass --bin DIR',
  );
}
