/**
 * The action's inputs, parsed once into a typed object. Only the adapter (src/action.ts) knows where
 * they come from; validation messages name the input, the bad value and the expected form.
 */
import { parseSteadyPass, type SteadyPass } from '../../core/compare/evidence/steady-evidence.js';
import path from 'node:path';
import { parseDurationS } from '../../core/util/duration.js';
import { parseBaselineSpec, type BaselineSpec } from '../../flows/compare/baseline/stored-baseline.js';
import { isPostgresUrl } from '../../store/open/open-store.js';
import { parseShardSpec } from '../../run/shards.js';
import { refNameProblem } from '../../postgres/builds/ref-name.js';
import { runAsNameProblem } from '../../postgres/cluster/run-as.js';
import { UserError } from '../../core/util/errors.js';
import type { CommitfestEntry } from '../../core/results/result-types.js';
import { commitfestEntryOf } from '../../postgres/builds/commitfest.js';
import { checkNightlyIssues } from '../../flows/nightly/nightly-job.js';
import { checkBisectRounds } from '../../flows/bisect/bisect-request.js';
import { checkBackfill } from '../../flows/nightly/backfill.js';
import {
  BACKFILL_COMMITS,
  CLIENTS,
  CLIENT_COUNTS,
  DURATION_S,
  EXPECT_EVERY_HOURS,
  RAISE_AFTER_DAYS,
  AUTO_BISECT_PER_WEEK,
  EXTRA_ROUNDS,
  ROUNDS,
  TIME_BUDGET_S,
  rangeText,
  type Bound,
} from '../../core/bounds.js';
import {
  DEFAULT_ALPHA,
  DEFAULT_FAIL_ON,
  DEFAULT_THRESHOLD_PCT,
  FAIL_ON,
  alphaProblem,
  thresholdProblem,
  type FailOn,
} from '../../core/compare/decision/policy.js';

export { FAIL_ON } from '../../core/compare/decision/policy.js';
export const MODES = [
  'benchmark',
  'comment',
  'nightly',
  // The shards of a matrix as one comment and one status (consolidate-mode.ts).
  'consolidate',
  // The same install as both arms: this runner's noise and false alarms (calibrate-mode.ts).
  'calibrate',
  // The first bad commit of a regression issue (label pgperf-bisect) or of base-ref..head-ref (bisect-mode.ts).
  'bisect',
  // A /pgperf PR comment: permission, reaction, and the accepted request as outputs (command-mode.ts).
  'command',
  // The commits of base-ref..head-ref that moved the instructions per transaction (attribute-mode.ts).
  'attribute',
] as const;

/** When the sticky comment is written: every run, or only when the decision changed. */
export const COMMENT_ON = ['always', 'change'] as const;
export const INSTRUCTION_COUNTERS = ['auto', 'cachegrind', 'perf'] as const;

export interface ActionInputs {
  /**
   * benchmark: build, run, decide and report; comment: report an earlier run's results (fork PRs);
   * nightly: measure the branch head into the store, find change points, one issue per regression event.
   */
  mode: (typeof MODES)[number];
  /** Git URL or local path of the PostgreSQL source; default: the workflow's repository. */
  repo?: string;
  /** Base and head commits; default from the event (PR: merge-base and PR head). */
  baseRef?: string;
  headRef?: string;
  /**
   * benchmark: a commitfest entry as head (cfbot's branch cf/<id> of `repo`, default cfbot's mirror), against
   * its merge-base with `baseRef` (default master); the entry is recorded in the results.
   */
  commitfestEntry?: CommitfestEntry;
  /** Pre-built installs (bin directories) to use instead of building base/head. */
  baseBinDir?: string;
  headBinDir?: string;
  /** Patch files applied to head, in order. */
  patches: string[];
  /** Workload files, or names of the workloads shipped with the action (e.g. select-only). */
  workloads: string[];
  /** Every workload's rounds, fixed. */
  rounds?: number;
  /**
   * benchmark: timed rounds adaptive by default where no rounds are given (true, the default); false: fixed,
   * the workloads' own or DEFAULT_ROUNDS (src/flows/compare/options/rounds-choice.ts).
   */
  adaptive: boolean;
  /** benchmark: these client counts instead of each workload's (e.g. from `/pgperf run clients=1,64`). */
  clientCounts?: number[];
  /** bisect: the client count to measure (default the workload's, when it has one). */
  clients?: number;
  /** Adaptive rounds: at most this many (looks after blocks of rounds; decided cells stop). */
  maxRounds?: number;
  /** Adaptive rounds within this many seconds of measurement. */
  timeBudgetS?: number;
  /** Adaptive rounds: the pass question's one-sided α per cell (default DEFAULT_PASS_ALPHA). */
  passAlpha?: number;
  duration?: number;
  /** Rounds of the confirmation block that re-measures a regressed cell (0: none; default 6). */
  confirmRounds?: number;
  alpha: number;
  /** Practical threshold in percent. */
  threshold: number;
  failOn: FailOn;
  /** Run a plan that cannot reach significance at all (refused by default). */
  force: boolean;
  /** benchmark: profile the workloads whose throughput changed, after the rounds. */
  explain: boolean;
  /** true: the plan phase for every pgbench workload (docs/plans.md); false: off; unset: the default plans. */
  plans?: boolean;
  /** mode nightly: a frozen install measured as the runner canary (night-watch.ts). */
  canaryBinDir?: string;
  /** mode nightly: hours expected between nightly runs; a longer gap is a missing-night alert. */
  expectEveryHours?: number;
  /** mode nightly: build and measure this many commits before the head first (flows/nightly/backfill.ts). */
  backfill?: number;
  /** mode nightly: keep the triage digest issue (triage-digest.ts), raising entries after raiseAfterDays. */
  triageDigest: boolean;
  raiseAfterDays?: number;
  /** mode nightly: bisections started without a label in any 7 days (regression-issues.ts; 0: none). */
  autoBisectPerWeek?: number;
  /** What counts the instruction mode's instructions (instruction-phase.ts). */
  instructionCounter: (typeof INSTRUCTION_COUNTERS)[number];
  /** true: count CPU instructions for every workload (docs/instructions.md); false: off; unset: by default. */
  instructions?: boolean;
  /** Up to which client count unchanged instructions pass an undecided cell (steady-evidence.ts); unset: the default. */
  steadyPass?: SteadyPass;
  /** Post (or update) the PR comment. */
  comment: boolean;
  /** always: write the comment on every run; change: only when the decision's outcome or verdict changed. */
  commentOn: (typeof COMMENT_ON)[number];
  /** Keeps one comment per id, so several jobs on a PR each keep their own. */
  commentId: string;
  /** Set a commit status carrying the verdict on the head commit. */
  commitStatus: boolean;
  /** PR to comment on when the event is not a pull_request (e.g. a /perf comment or workflow_run). */
  prNumber?: number;
  githubToken?: string;
  resultsDir: string;
  runAs?: string;
  cacheDir?: string;
  /** Extra build options (meson -D... or configure --...), one per line. */
  buildOptions: string[];
  /** The results store every benchmark run is saved to: a directory (in the workspace) or a postgresql:// URL. */
  store?: string;
  /** Keep the directory store on this branch of the workflow's repository (fetched, committed, pushed). */
  storeBranch?: string;
  /** Measure base in this job (same-job), or compare head with a stored run (stored, stored:REF). */
  baseline: BaselineSpec;
  /** Nightly with store-branch: render the history site into this directory of the data branch. */
  publishSite?: string;
  /** Hold /dev/cpu_dma_latency at this many µs over the measured runs (opt-in; restored). */
  cpuDmaLatencyUs?: number;
  /** Set this cpufreq governor over the measured runs (opt-in; restored). */
  governor?: string;
  /** benchmark: run only shard I of N of the cells (no comment, no status: consolidate posts them). */
  shard?: { index: number; count: number };
  /** Seed of the run order and client seeds; default with a shard: the workflow run id. */
  seed?: number;
  /** consolidate: only shards of this plan (16 hex); default the plan of the shards found. */
  planId?: string;
  /** consolidate: how long to wait for missing shards in the store (seconds; 0: do not wait). */
  waitTimeoutS: number;
}

/** Reads an input by its action.yml name; '' when unset (as @actions/core does). */
export type InputReader = (name: string) => string;

export function parseInputs(read: InputReader): ActionInputs {
  const inputs = readInputs(read);
  checkInputs(inputs);
  return inputs;
}

/** Every input read and validated on its own, under action.yml's names. */
function readInputs(read: InputReader): ActionInputs {
  const text = (name: string) => read(name).trim() || undefined;
  const list = (name: string) =>
    read(name)
      .split(/[\n,]/)
      .map((s) => s.trim())
      .filter(Boolean);
  const comment = bool(read, 'comment', true);
  const token = text('github-token');
  return {
    mode: choice(read, 'mode', MODES, 'benchmark'),
    repo: text('repo'),
    baseRef: text('base-ref'),
    headRef: text('head-ref'),
    ...commitfestInput(text('commitfest-entry')),
    baseBinDir: text('base-bin-dir'),
    headBinDir: text('head-bin-dir'),
    patches: list('patches'),
    workloads: list('workloads'),
    rounds: optionalNumber(read, 'rounds', { integer: true, min: 1, bound: ROUNDS }),
    adaptive: bool(read, 'adaptive', true),
    clients: optionalNumber(read, 'clients', { integer: true, min: 1, bound: CLIENTS }),
    ...clientCountsInput(read),
    maxRounds: optionalNumber(read, 'max-rounds', { integer: true, min: 1, bound: ROUNDS }),
    timeBudgetS: optionalDuration(read, 'time-budget', TIME_BUDGET_S),
    passAlpha: optionalNumber(read, 'pass-alpha', { min: 0, max: 0.5, exclusive: true }),
    duration: optionalNumber(read, 'duration', { integer: true, min: 1, bound: DURATION_S }),
    confirmRounds: optionalNumber(read, 'confirm-rounds', { integer: true, min: 0, bound: EXTRA_ROUNDS }),
    alpha: policyNumber(read, 'alpha', alphaProblem) ?? DEFAULT_ALPHA,
    threshold: policyNumber(read, 'threshold', thresholdProblem) ?? DEFAULT_THRESHOLD_PCT,
    failOn: choice(read, 'fail-on', FAIL_ON, DEFAULT_FAIL_ON),
    force: bool(read, 'force', false),
    explain: bool(read, 'explain', false),
    ...switchInput(read, 'plans'),
    canaryBinDir: text('canary-bin-dir'),
    backfill: optionalNumber(read, 'backfill', {
      integer: true,
      min: BACKFILL_COMMITS.min,
      max: BACKFILL_COMMITS.max,
    }),
    expectEveryHours: optionalNumber(read, 'expect-every', {
      integer: true,
      min: 1,
      bound: EXPECT_EVERY_HOURS,
    }),
    triageDigest: bool(read, 'triage-digest', false),
    raiseAfterDays: optionalNumber(read, 'raise-after', { integer: true, min: 1, bound: RAISE_AFTER_DAYS }),
    autoBisectPerWeek: optionalNumber(read, 'auto-bisect-per-week', {
      integer: true,
      min: 0,
      bound: AUTO_BISECT_PER_WEEK,
    }),
    instructionCounter: choice(read, 'instruction-counter', INSTRUCTION_COUNTERS, 'auto'),
    ...switchInput(read, 'instructions'),
    ...steadyPassInput(read),
    comment,
    commentOn: choice(read, 'comment-on', COMMENT_ON, 'always'),
    commentId: text('comment-id') ?? 'default',
    commitStatus: bool(read, 'commit-status', true),
    prNumber: optionalNumber(read, 'pr-number', { integer: true, min: 1 }),
    githubToken: token,
    resultsDir: text('results-dir') ?? 'pgperf-results',
    runAs: text('run-as'),
    cacheDir: text('cache-dir'),
    buildOptions: read('build-options')
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean),
    store: text('store'),
    storeBranch: text('store-branch'),
    baseline: parseBaselineSpec(read('baseline').trim() || 'same-job', "input 'baseline'"),
    publishSite: text('publish-site'),
    cpuDmaLatencyUs: optionalNumber(read, 'cpu-dma-latency', { integer: true, min: 0 }),
    governor: text('governor'),
    ...shardInputs(read),
  };
}

/** The inputs against each other: a conflict, or an input its mode ignores, fails with what to change. */
function checkInputs(inputs: ActionInputs): void {
  const token = inputs.githubToken;
  checkPublishSite(inputs);
  checkModeInputs(inputs);
  checkNightlyIssues(inputs, { triageDigest: "'triage-digest: true'", raiseAfter: "input 'raise-after'" });
  checkCommitfestInput(inputs);
  if (inputs.store && inputs.storeBranch && isPostgresUrl(inputs.store)) {
    throw new UserError(
      "inputs 'store' (a postgresql:// URL) and 'store-branch' (a directory store on a git branch) exclude each other: set one",
    );
  }
  if (inputs.baseline.kind === 'stored' && !inputs.store && !inputs.storeBranch) {
    throw new UserError(
      "input 'baseline' is stored, which reads the baseline from a results store: set 'store' (a directory or postgresql:// URL) or 'store-branch'",
    );
  }
  if (!/^[A-Za-z0-9._-]+$/.test(inputs.commentId)) {
    throw new UserError(
      `input 'comment-id' must be letters, digits, ".", "_" or "-", got '${inputs.commentId}'`,
    );
  }
  if (!token && inputs.mode === 'command') {
    throw new UserError(
      "input 'github-token' is empty, but mode command reads the commenter's permission and replies through the API: pass github-token (default ${{ github.token }})",
    );
  }
  if (
    !token &&
    inputs.mode !== 'nightly' &&
    inputs.mode !== 'calibrate' &&
    inputs.mode !== 'bisect' &&
    inputs.mode !== 'attribute' &&
    (inputs.comment || inputs.commitStatus)
  ) {
    throw new UserError(
      "input 'github-token' is empty but 'comment' or 'commit-status' is on: pass github-token (default ${{ github.token }}) or set comment: false and commit-status: false",
    );
  }
  if (
    inputs.mode !== 'nightly' &&
    inputs.mode !== 'calibrate' &&
    Boolean(inputs.baseBinDir) !== Boolean(inputs.headBinDir)
  ) {
    throw new UserError("inputs 'base-bin-dir' and 'head-bin-dir' go together: set both or neither");
  }
  if (inputs.baseBinDir) {
    // Pre-built installs are used as they are: build inputs would be silently ignored.
    const building = inputsSet([
      ['patches', inputs.patches.length > 0],
      ['build-options', inputs.buildOptions.length > 0],
      ['repo', inputs.repo !== undefined],
    ]);
    if (building.length > 0) {
      throw new UserError(
        `input '${building[0]}' builds PostgreSQL, but 'base-bin-dir' and 'head-bin-dir' give pre-built installs: ` +
          `remove '${building.join("', '")}' or the bin-dir inputs`,
      );
    }
  }
  for (const [name, value] of [
    ['base-ref', inputs.baseRef],
    ['head-ref', inputs.headRef],
  ] as const) {
    const problem = value === undefined ? undefined : refNameProblem(`input '${name}'`, value);
    if (problem) throw new UserError(problem);
  }
  const runAsProblem =
    inputs.runAs === undefined ? undefined : runAsNameProblem("input 'run-as'", inputs.runAs);
  if (runAsProblem) throw new UserError(runAsProblem);
  checkShardInputs(inputs);
  for (const w of inputs.workloads) {
    if (/[\0\r]/.test(w)) throw new UserError(`input 'workloads': '${JSON.stringify(w)}' is not a file name`);
  }
  MODE_CHECKS[inputs.mode]?.(inputs);
}

type Mode = ActionInputs['mode'];

/**
 * The inputs only some modes read, each with what it does there: set under another mode, it is refused
 * naming the input, its value, what it does and the mode (one rule for all of them).
 */
function checkModeInputs(inputs: ActionInputs): void {
  const benchmark: readonly Mode[] = ['benchmark'];
  const nightly: readonly Mode[] = ['nightly'];
  const modeInputs: ReadonlyArray<readonly [string, unknown, readonly Mode[], string]> = [
    ['commitfest-entry', inputs.commitfestEntry?.id, benchmark, 'builds head in mode benchmark'],
    [
      'comment-on',
      inputs.commentOn === 'change' ? 'change' : undefined,
      ['benchmark', 'comment'],
      'applies to the PR comment of modes benchmark and comment',
    ],
    ['confirm-rounds', inputs.confirmRounds, benchmark, 'sets the confirmation block of mode benchmark'],
    [
      'adaptive',
      inputs.adaptive ? undefined : 'false',
      benchmark,
      'turns off the adaptive rounds of mode benchmark',
    ],
    ['pass-alpha', inputs.passAlpha, benchmark, 'shapes the adaptive rounds of mode benchmark'],
    [
      'plans',
      inputs.plans === true || undefined,
      benchmark,
      'takes the plans of the arms mode benchmark compares',
    ],
    ['explain', inputs.explain || undefined, benchmark, 'profiles the changes mode benchmark measures'],
    [
      'client-counts',
      inputs.clientCounts?.join(','),
      benchmark,
      'chooses the client counts of mode benchmark',
    ],
    ['clients', inputs.clients, ['bisect'], 'chooses the one cell of mode bisect'],
    ['canary-bin-dir', inputs.canaryBinDir, nightly, "measures mode nightly's runner canary"],
    ['expect-every', inputs.expectEveryHours, nightly, 'says how often mode nightly runs'],
    ['backfill', inputs.backfill, nightly, 'measures the commits before the head of mode nightly'],
    ['triage-digest', inputs.triageDigest || undefined, nightly, "keeps mode nightly's triage digest"],
    ['raise-after', inputs.raiseAfterDays, nightly, "raises mode nightly's untriaged regressions"],
    [
      'auto-bisect-per-week',
      inputs.autoBisectPerWeek,
      nightly,
      "bounds mode nightly's bisections without a label",
    ],
  ];
  for (const [name, value, modes, does] of modeInputs) {
    if (value === undefined || modes.includes(inputs.mode)) continue;
    throw new UserError(
      `input '${name}' (${String(value)}) ${does}; mode ${inputs.mode} does not read it: remove it`,
    );
  }
}

/**
 * The refusals of a mode's own: what a mode cannot run with, checked with the other inputs before anything
 * runs. (Whether this runner can open a store or build is the mode's to check: it is not an input.)
 */
const MODE_CHECKS: Partial<Record<Mode, (inputs: ActionInputs) => void>> = {
  nightly: checkNightlyInputs,
  bisect: checkBisectInputs,
  calibrate: checkCalibrateInputs,
  attribute: checkAttributeInputs,
};

/**
 * mode attribute: base-ref (the older end) and head-ref (the newer one) given; inputs of a timed comparison
 * or of pre-built installs are refused, naming them, before anything is built.
 */
function checkAttributeInputs(inputs: ActionInputs): void {
  const missing = inputsSet([
    ['base-ref', inputs.baseRef === undefined],
    ['head-ref', inputs.headRef === undefined],
  ]);
  if (missing.length > 0) {
    throw new UserError(
      `mode attribute names the commits between 'base-ref' (the older end) and 'head-ref' (the newer end, base-ref on its first-parent line): set '${missing.join("' and '")}' (e.g. base-ref: REL_17_0, head-ref: REL_18_0)`,
    );
  }
  refuseInputs(
    'mode attribute builds every commit it counts from source and counts instructions, it runs no timed rounds',
    [
      ['base-bin-dir', inputs.baseBinDir !== undefined],
      ['head-bin-dir', inputs.headBinDir !== undefined],
      ['patches', inputs.patches.length > 0],
      ['rounds', inputs.rounds !== undefined],
      ['max-rounds', inputs.maxRounds !== undefined],
      ['time-budget', inputs.timeBudgetS !== undefined],
      ['duration', inputs.duration !== undefined],
      ['baseline', inputs.baseline.kind !== 'same-job'],
      ['store', inputs.store !== undefined],
      ['store-branch', inputs.storeBranch !== undefined],
    ],
  );
}

/** mode nightly: a store, one measured arm (inputs that mean nothing for it refused, naming them), a token. */
function checkNightlyInputs(inputs: ActionInputs): void {
  if (!inputs.store && !inputs.storeBranch) {
    throw new UserError(
      "mode nightly saves every run to the results store and analyses its history: set 'store' (a directory or postgresql:// URL) or 'store-branch' (e.g. pgperf-data)",
    );
  }
  refuseInputs('mode nightly measures the branch head alone, against its stored history', [
    ['base-ref', inputs.baseRef !== undefined],
    ['base-bin-dir', inputs.baseBinDir !== undefined],
    ['patches', inputs.patches.length > 0],
    ['max-rounds', inputs.maxRounds !== undefined],
    ['time-budget', inputs.timeBudgetS !== undefined],
    ['baseline', inputs.baseline.kind !== 'same-job'],
  ]);
  checkBackfill(
    inputs.backfill,
    { installed: inputs.headBinDir !== undefined },
    { backfill: "input 'backfill'", bin: "input 'head-bin-dir'" },
  );
  if (inputs.headBinDir && (inputs.repo !== undefined || inputs.buildOptions.length > 0)) {
    throw new UserError(
      "input 'head-bin-dir' gives a pre-built install, but 'repo'/'build-options' build PostgreSQL: remove one or the other",
    );
  }
  if (!inputs.githubToken) {
    throw new UserError(
      "mode nightly keeps one issue per regression event: pass 'github-token' (default ${{ github.token }}) with issues: write",
    );
  }
}

/** mode bisect: inputs that mean nothing to a bisection are refused, naming them, before anything is built. */
function checkBisectInputs(inputs: ActionInputs): void {
  refuseInputs(
    'mode bisect builds every commit it measures from source and bounds each A/B test by rounds or max-rounds',
    [
      ['base-bin-dir', inputs.baseBinDir !== undefined],
      ['head-bin-dir', inputs.headBinDir !== undefined],
      ['patches', inputs.patches.length > 0],
      ['baseline', inputs.baseline.kind !== 'same-job'],
    ],
  );
  checkBisectRounds(inputs, {
    rounds: "input 'rounds'",
    maxRounds: "input 'max-rounds'",
    timeBudget: "input 'time-budget'",
  });
}

/** mode calibrate: one installed PostgreSQL, head-bin-dir, measured as both arms. */
function checkCalibrateInputs(inputs: ActionInputs): void {
  if (!inputs.headBinDir) {
    throw new UserError(
      "mode calibrate measures one installed PostgreSQL as both arms: set 'head-bin-dir' (and no 'base-bin-dir')",
    );
  }
  if (inputs.baseBinDir) {
    throw new UserError("mode calibrate measures 'head-bin-dir' as both arms: drop 'base-bin-dir'");
  }
}

/** commitfest-entry: a positive integer, the entry's id. */
function commitfestInput(id: string | undefined): Pick<ActionInputs, 'commitfestEntry'> {
  return id === undefined ? {} : { commitfestEntry: commitfestEntryOf(id, "input 'commitfest-entry'") };
}

/** commitfest-entry builds head from the entry's branch (mode benchmark only: checkModeInputs), no other head. */
function checkCommitfestInput(inputs: ActionInputs): void {
  const entry = inputs.commitfestEntry;
  if (!entry) return;
  const other = inputsSet([
    ['head-ref', inputs.headRef !== undefined],
    ['base-bin-dir', inputs.baseBinDir !== undefined],
    ['head-bin-dir', inputs.headBinDir !== undefined],
  ]);
  if (other.length > 0) {
    throw new UserError(
      `input 'commitfest-entry' (${entry.id}) makes head the branch ${entry.branch}, and base its merge-base with 'base-ref' (default master): remove '${other.join("', '")}'`,
    );
  }
}

/** client-counts: distinct whole numbers within CLIENTS, comma- or newline-separated, at most CLIENT_COUNTS. */
function clientCountsInput(read: InputReader): Pick<ActionInputs, 'clientCounts'> {
  const raw = read('client-counts').trim();
  if (raw === '') return {};
  const items = raw.split(/[\n,]/).map((s) => s.trim());
  const counts = items.map(Number);
  if (
    items.some((s) => !/^[0-9]+$/.test(s)) ||
    counts.some((n) => n < 1) ||
    new Set(counts).size !== counts.length
  ) {
    throw new UserError(
      `input 'client-counts' must be distinct whole numbers >= 1, comma-separated (e.g. 1,64), got '${clip(raw)}'`,
    );
  }
  const over = items.find((_, i) => counts[i]! > CLIENTS.max);
  if (over !== undefined) {
    throw new UserError(
      `input 'client-counts': each client count must be a whole number ${rangeText(CLIENTS)}, got '${clip(over)}'`,
    );
  }
  if (counts.length > CLIENT_COUNTS.max) {
    throw new UserError(
      `input 'client-counts' must be at most ${CLIENT_COUNTS.max} client counts, got ${counts.length}`,
    );
  }
  return { clientCounts: counts };
}

/** A value as an error shows it: at most 60 characters. */
function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/** publish-site: a directory of the data branch, for mode nightly with store-branch. */
function checkPublishSite(inputs: ActionInputs): void {
  const site = inputs.publishSite;
  if (site === undefined) return;
  if (inputs.mode !== 'nightly' || !inputs.storeBranch) {
    throw new UserError(
      `input 'publish-site' (${site}) publishes the history site of mode nightly to the data branch: set 'mode: nightly' and 'store-branch', or remove it`,
    );
  }
  const parts = site.split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
  const store = (inputs.store ?? 'store').split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
  if (path.isAbsolute(site) || parts.includes('..') || /[\0\r\n]/.test(site)) {
    throw new UserError(
      `input 'publish-site' must be a directory inside the data branch such as docs (a relative path without ".."), got '${site}'`,
    );
  }
  if (store.every((p, i) => parts[i] === p)) {
    throw new UserError(
      `input 'publish-site' (${site}) would put the site inside the store's directory '${store.join('/')}' of the branch: choose another directory, e.g. docs`,
    );
  }
}

function choice<T extends string>(read: InputReader, name: string, allowed: readonly T[], fallback: T): T {
  const value = read(name).trim();
  if (value === '') return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UserError(`input '${name}' must be one of ${allowed.join(', ')}, got '${value}'`);
  }
  return value as T;
}

function bool(read: InputReader, name: string, fallback: boolean): boolean {
  const value = read(name).trim().toLowerCase();
  if (value === '') return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UserError(`input '${name}' must be true or false, got '${read(name).trim()}'`);
}

/**
 * An evidence switch (src/run/counted/default-evidence.ts): 'auto' or empty leaves it to the default
 * (absent), 'true' asks for it everywhere, 'false' turns it off.
 */
function switchInput<K extends 'plans' | 'instructions'>(
  read: InputReader,
  name: K,
): Partial<Record<K, boolean>> {
  const value = read(name).trim().toLowerCase();
  if (value === '' || value === 'auto') return {};
  if (value === 'true' || value === 'false')
    return { [name]: value === 'true' } as Partial<Record<K, boolean>>;
  throw new UserError(`input '${name}' must be auto, true or false, got '${read(name).trim()}'`);
}

/** The steady-pass policy, by the rule --steady-pass follows (src/core/compare/evidence/steady-evidence.ts). */
function steadyPassInput(read: InputReader): { steadyPass?: SteadyPass } {
  const raw = read('steady-pass').trim();
  if (raw === '') return {};
  const parsed = parseSteadyPass(raw);
  if ('problem' in parsed) throw new UserError(`input 'steady-pass' ${parsed.problem}`);
  return { steadyPass: parsed.value };
}

/** α and threshold, checked by the one rule the CLI flags use too (src/core/compare/decision/policy.ts). */
function policyNumber(
  read: InputReader,
  name: string,
  problem: (value: string) => string | undefined,
): number | undefined {
  const raw = read(name).trim();
  if (raw === '') return undefined;
  const why = problem(raw);
  if (why) throw new UserError(`input '${name}' ${why}`);
  return Number(raw.replace(/%$/, ''));
}

/**
 * A number input, or undefined when unset. `bound` (src/core/bounds.ts): a size whose range is shared with
 * the CLI flags, the workload file and the PR commands; a value outside it is refused naming the range.
 */
function optionalNumber(
  read: InputReader,
  name: string,
  rule: { integer?: boolean; min?: number; max?: number; exclusive?: boolean; bound?: Bound },
): number | undefined {
  const raw = read(name).trim();
  if (raw === '') return undefined;
  const n = Number(raw);
  const low = rule.min === undefined || (rule.exclusive ? n > rule.min : n >= rule.min);
  const high = rule.max === undefined || (rule.exclusive ? n < rule.max : n <= rule.max);
  if (raw === '' || !Number.isFinite(n) || (rule.integer && !Number.isInteger(n)) || !low || !high) {
    const kind = rule.integer ? 'a whole number' : 'a number';
    const range =
      rule.max !== undefined
        ? ` between ${rule.min} and ${rule.max}${rule.exclusive ? ' (exclusive)' : ''}`
        : rule.min !== undefined
          ? ` >= ${rule.min}`
          : '';
    throw new UserError(`input '${name}' must be ${kind}${range}, got '${raw}'`);
  }
  if (rule.bound && (n < rule.bound.min || n > rule.bound.max)) {
    throw new UserError(`input '${name}' must be a whole number ${rangeText(rule.bound)}, got '${raw}'`);
  }
  return n;
}

function optionalDuration(read: InputReader, name: string, bound?: Bound): number | undefined {
  const raw = read(name).trim();
  if (raw === '') return undefined;
  const seconds = parseDurationS(raw);
  if (seconds === undefined) {
    throw new UserError(`input '${name}' must be a duration such as 45m, 1h or 900s, got '${raw}'`);
  }
  if (bound && seconds > bound.max) {
    throw new UserError(
      `input '${name}' must be at most ${bound.max} s (${bound.max / 86_400} days), got '${raw}'`,
    );
  }
  return seconds;
}

/** The fleet inputs: shard, seed (benchmark), plan-id and wait-timeout (consolidate). */
function shardInputs(read: InputReader): Pick<ActionInputs, 'shard' | 'seed' | 'planId' | 'waitTimeoutS'> {
  const shardText = read('shard').trim();
  let shard;
  try {
    shard = shardText ? parseShardSpec(shardText, "input 'shard'") : undefined;
  } catch (e) {
    throw new UserError(e instanceof Error ? e.message : String(e));
  }
  const seed = optionalNumber(read, 'seed', { integer: true, min: 1 });
  if (seed !== undefined && !Number.isSafeInteger(seed)) {
    throw new UserError(`input 'seed' must be a whole number below 2^53, got '${read('seed').trim()}'`);
  }
  const planId = read('plan-id').trim() || undefined;
  if (planId !== undefined && !/^[0-9a-f]{16}$/.test(planId)) {
    throw new UserError(
      `input 'plan-id' must be a plan id (16 hex digits, as pgperf plan prints it), got '${planId}'`,
    );
  }
  const wait = read('wait-timeout').trim();
  const waitTimeoutS =
    wait === '' ? 600 : /^0+[smh]?$/.test(wait) ? 0 : optionalDuration(read, 'wait-timeout')!;
  return {
    ...(shard ? { shard } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(planId ? { planId } : {}),
    waitTimeoutS,
  };
}

function checkShardInputs(inputs: ActionInputs): void {
  if (inputs.shard && inputs.mode !== 'benchmark') {
    throw new UserError(
      `input 'shard' runs part of a benchmark, but mode is ${inputs.mode}: remove 'shard' (mode consolidate finds the shards itself)`,
    );
  }
}

/** The names of the inputs that are set, of [name, is it set] pairs. */
export function inputsSet(pairs: ReadonlyArray<readonly [string, boolean]>): string[] {
  return pairs.filter(([, set]) => set).map(([name]) => name);
}

/** Refuses inputs that mean nothing to a mode, naming them: "<why>: remove 'a', 'b'". */
export function refuseInputs(why: string, pairs: ReadonlyArray<readonly [string, boolean]>): void {
  const set = inputsSet(pairs);
  if (set.length > 0) throw new UserError(`${why}: remove '${set.join("', '")}'`);
}
