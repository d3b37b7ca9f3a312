/**
 * The speed goals of #38 (item 5, "Done when"): what `pgperf run` answers, and how fast, with DEFAULT flags
 * (only the workload chosen) on real PostgreSQL 18 builds on this runner (docs/performance.md). Each scenario
 * is one run of the built CLI as a user types it:
 *
 *   node dist/cli.js run --repo R --base base --head H --workload W --clients 2 --cache-dir C --out O
 *   node dist/cli.js run --arm base=I/bin --arm head=I/bin --set head:... ...   (settings-only heads: --set
 *                                                                                applies to --arm arms)
 *
 * R is the test kit's repository of the PostgreSQL 18 release (testkit/pg-source.ts), in a copy of its own
 * (REPO_NAME under the cache's repos/), with one commit per patched head: bench/patches/*.patch, applied with
 * `git apply` onto base and committed with fixed author and dates, so a head's sha (and so its cached
 * install) is the same on every run. The child gets a private HOME (an empty results store, as a new user
 * has: nightly noise floors of another run cannot change an answer) and TMPDIR (its clusters, checked for
 * leftovers afterwards); everything else is pgperf's default.
 *
 *   1 docs-only         a patch touching only doc/                  passed, nothing measured, within 90 s
 *   2 comment-only      a comment in execMain.c                     passed (not pending) within 300 s
 *   3 spin              a spin loop in standard_ExecutorRun         failed on instructions within 300 s
 *   4 lwlock            a spin inside an exclusive LWLock per query failed
 *   5 commit-delay      --set head:commit_delay=5000,               not passed
 *                       commit_siblings=0 (tpcb-like)
 *   6 indexscan-off     --set head:enable_indexscan=off,            the plan change reported
 *                       enable_bitmapscan=off
 *
 * Workload: the shipped select-only (prepared, scale 10) at 2 clients; tpcb-like at 2 clients for 5.
 * By default each patched head is built first (`pgperf build`, its own step and column), so the run's wall
 * time is the answer's with cached builds, as the goals are stated; --cold-builds leaves the build inside
 * the run. A run still going after --timeout-min is stopped with SIGINT (pgperf keeps what it measured and
 * stops its servers) and reported as stopped.
 *
 * Prints progress (scenario, step, pgperf's own log lines with the elapsed seconds), then a markdown table;
 * writes every scenario's record to --json (default bench/results/default-answers.json; the scenarios of an
 * --only run replace their own entries there). The runs' results directories are kept under the printed
 * work directory.
 *
 *   npx tsx bench/default-answers.ts [--only N[,N...]] [--cache-dir DIR] [--timeout-min 10] [--cold-builds]
 *                                    [--json FILE]
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { headlineText } from '../src/core/compare/decision/flow-decision.js';
import type { Decision } from '../src/core/compare/decision/decision.js';
import type { AnswerCost, RunResult } from '../src/core/results/result-types.js';
import { planChanged } from '../src/core/results/plans.js';
import { nodeProcessRunner, type ProcessResult } from '../src/machine/os/process.js';
import { git, preparePgSourceRepo, testCacheDir } from '../testkit/pg-source.js';
import { killProcessesMentioning, leftoverProcesses } from '../testkit/postgres.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
/** The bench's own copy of the test kit's PostgreSQL 18 repository, under the cache's repos/. */
const REPO_NAME = 'pg18-default-answers';

/** What one scenario's run answered, and what it cost. */
interface Answer {
  n: number;
  name: string;
  /** The goal, as #38 states it. */
  goal: string;
  /** The goal held (false when the run was stopped or wrote no decision). */
  met: boolean;
  /** decision.json's outcome ('passed', 'failed', 'pending', 'incomplete'), or 'none' without a decision. */
  outcome: string;
  verdict: string | null;
  headline: string | null;
  exitCode: number | null;
  /** The `pgperf run` process, start to exit, as the bench measured it. */
  wallS: number;
  /** The head's `pgperf build` before the run (0: the install was cached, or --cold-builds). */
  prebuildS: number;
  /** decision.json's cost. */
  cost: AnswerCost | null;
  /** Every gated cell: "select-only@2 instructions: regression (instruction counts, 3 repetitions) -8.1%". */
  cells: string[];
  /** The terminal's "plan changed: ..." lines, and whether results.json records a changed plan. */
  planLines: string[];
  planChangedInResults: boolean;
  /** Set when the bench stopped the run at --timeout-min. */
  stoppedAfterS?: number;
  /** The run's results directory (kept). */
  out: string;
  /** When the scenario ran. */
  at: string;
}

interface Scenario {
  n: number;
  name: string;
  what: string;
  goal: string;
  /** bench/patches/<file>: the head is base plus this patch, as a commit. Without it the head is base. */
  patch?: string;
  workload: 'select-only' | 'tpcb-like';
  set: string[];
  met(a: Omit<Answer, 'met' | 'goal'>): boolean;
}

const failedOn = (a: { cells: string[] }, metric: string) =>
  a.cells.some((c) => c.includes(` ${metric}: regression`));

const SCENARIOS: Scenario[] = [
  {
    n: 1,
    name: 'docs-only',
    what: 'a patch touching only `doc/`',
    goal: 'passed, nothing measured, within 90 s',
    patch: 'docs-only.patch',
    workload: 'select-only',
    set: [],
    met: (a) =>
      a.outcome === 'passed' && a.cost?.timedRounds === 0 && (a.cost?.countedS ?? 1) < 0.5 && a.wallS <= 90,
  },
  {
    n: 2,
    name: 'comment-only',
    what: 'a comment added in `execMain.c` (standard_ExecutorRun)',
    goal: 'passed (not pending) within 300 s',
    patch: 'execmain-comment.patch',
    workload: 'select-only',
    set: [],
    met: (a) => a.outcome === 'passed' && a.wallS <= 300,
  },
  {
    n: 3,
    name: 'spin',
    what: 'a spin loop (10,000 iterations) in `standard_ExecutorRun`',
    goal: 'failed, decided by instructions, within 300 s',
    patch: 'execmain-spin.patch',
    workload: 'select-only',
    set: [],
    met: (a) => a.outcome === 'failed' && failedOn(a, 'instructions') && a.wallS <= 300,
  },
  {
    n: 4,
    name: 'lwlock',
    what: 'a spin (2,000 iterations) inside an exclusive LWLock in every query',
    goal: 'failed',
    patch: 'execmain-lwlock.patch',
    workload: 'select-only',
    set: [],
    met: (a) => a.outcome === 'failed',
  },
  {
    n: 5,
    name: 'commit-delay',
    what: '`commit_delay=5000`, `commit_siblings=0` in head (tpcb-like)',
    goal: 'not passed',
    workload: 'tpcb-like',
    set: ['head:commit_delay=5000', 'head:commit_siblings=0'],
    // An answer that is not a pass: a run that was stopped or could not complete answered nothing.
    met: (a) => (a.outcome === 'failed' || a.outcome === 'pending') && a.stoppedAfterS === undefined,
  },
  {
    n: 6,
    name: 'indexscan-off',
    what: '`enable_indexscan=off`, `enable_bitmapscan=off` in head',
    goal: 'the plan change reported without any flag',
    workload: 'select-only',
    set: ['head:enable_indexscan=off', 'head:enable_bitmapscan=off'],
    met: (a) => a.planLines.length > 0,
  },
];

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    'cache-dir': { type: 'string', default: testCacheDir() },
    'timeout-min': { type: 'string', default: '10' },
    'cold-builds': { type: 'boolean', default: false },
    json: { type: 'string', default: path.join(ROOT, 'bench', 'results', 'default-answers.json') },
  },
});
const only = values.only?.split(',').map(Number);
if (only?.some((n) => !SCENARIOS.some((s) => s.n === n))) {
  throw new Error(
    `--only: expected scenario numbers 1 to ${SCENARIOS.length} (e.g. 3 or 2,3), got '${values.only}'`,
  );
}
const timeoutMin = Number(values['timeout-min']);
if (!(timeoutMin > 0)) throw new Error(`--timeout-min: expected minutes > 0, got '${values['timeout-min']}'`);
const cacheDir = path.resolve(values['cache-dir']);
const chosen = SCENARIOS.filter((s) => !only || only.includes(s.n));

const started = Date.now();
const say = (line: string) =>
  process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${line}\n`);

// Ctrl-C stops the running child (pgperf stops its servers on SIGINT) and then the bench.
const abort = new AbortController();
process.once('SIGINT', () => {
  say('SIGINT: stopping the running pgperf');
  abort.abort();
});

/** The head: base plus the scenario's patch, committed on a branch of its own (the same sha every time). */
async function headCommit(repoDir: string, s: Scenario, patch: string): Promise<string> {
  const branch = `bench/${s.name}`;
  await git(repoDir, ['checkout', '--quiet', '--force', '-B', branch, 'base']);
  try {
    await git(repoDir, ['apply', path.join(ROOT, 'bench', 'patches', patch)]);
    await git(repoDir, ['commit', '--quiet', '--all', '--message', `bench: ${s.what.replace(/`/g, '')}`]);
  } finally {
    await git(repoDir, ['checkout', '--quiet', '--force', 'base']);
  }
  return branch;
}

/** Runs the built CLI, each stderr line shown as progress; stopped with SIGINT at the timeout or on Ctrl-C. */
async function cli(
  tag: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<ProcessResult> {
  return nodeProcessRunner.run(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env,
    timeoutMs,
    signal: abort.signal,
    stopSignal: 'SIGINT',
    onStderrLine: (line) => {
      if (line.trim() !== '') say(`${tag}   ${line}`);
    },
  });
}

async function runScenario(s: Scenario, repoDir: string, work: string): Promise<Answer> {
  const tag = `[${s.n}/${SCENARIOS.length} ${s.name}]`;
  const dir = path.join(work, `${s.n}-${s.name}`);
  const home = path.join(dir, 'home');
  const tmp = path.join(dir, 'tmp');
  await mkdir(home, { recursive: true });
  await mkdir(tmp, { recursive: true });
  await chmod(tmp, 0o755);
  const env = { HOME: home, TMPDIR: tmp };
  let head: string | undefined;

  if (s.patch) {
    say(`${tag} step 1/3: head commit (${s.patch})`);
    head = await headCommit(repoDir, s, s.patch);
  } else say(`${tag} step 1/3: no head commit: base's install is both arms, head with its settings`);

  // A patched head is built before the run (--cold-builds: inside it). A settings-only head is base's
  // install: `pgperf build` prints its path, and the run takes it twice with --arm, since --set applies to
  // --arm arms only.
  let prebuildS = 0;
  let install = '';
  if (!s.patch || !values['cold-builds']) {
    const ref = head ?? 'base';
    say(`${tag} step 2/3: pgperf build --ref ${ref} (outside the answer's time)`);
    const t0 = Date.now();
    const built = await cli(
      tag,
      ['build', '--repo', repoDir, '--ref', ref, '--cache-dir', cacheDir],
      env,
      40 * 60_000,
    );
    prebuildS = (Date.now() - t0) / 1000;
    if (built.exitCode !== 0)
      throw new Error(`${tag} pgperf build failed (${built.exitCode}): ${built.stderr.slice(-2000)}`);
    install = built.stdout.trim();
  } else say(`${tag} step 2/3: no build before the run (--cold-builds)`);

  const out = path.join(dir, 'out');
  const arms = head
    ? ['--repo', repoDir, '--base', 'base', '--head', head]
    : ['--arm', `base=${path.join(install, 'bin')}`, '--arm', `head=${path.join(install, 'bin')}`];
  const args = [
    'run',
    ...arms,
    '--workload',
    s.workload,
    '--clients',
    '2',
    '--cache-dir',
    cacheDir,
    '--out',
    out,
    ...s.set.flatMap((x) => ['--set', x]),
  ];
  say(`${tag} step 3/3: pgperf ${args.join(' ')}`);
  const ran = await cli(tag, args, env, timeoutMin * 60_000);
  const wallS = ran.durationMs / 1000;
  await writeFile(path.join(dir, 'stdout.txt'), ran.stdout);
  await writeFile(path.join(dir, 'stderr.txt'), ran.stderr);
  const leftovers = leftoverProcesses(tmp);
  if (leftovers.length > 0) {
    // pgperf stops its servers on SIGINT; should one outlive it (killed after the runner's grace), stop it here.
    say(`${tag} LEFTOVER PROCESSES after the run, killed:\n  ${leftovers.join('\n  ')}`);
    killProcessesMentioning(tmp);
  }

  const runDir = await readdir(out)
    .then((names) => (names[0] ? path.join(out, names[0]) : null))
    .catch(() => null);
  const decision = runDir ? ((await readJson(path.join(runDir, 'decision.json'))) as Decision | null) : null;
  const result = runDir ? ((await readJson(path.join(runDir, 'results.json'))) as RunResult | null) : null;
  const text = `${ran.stdout}\n${ran.stderr}`;
  const answer: Omit<Answer, 'met' | 'goal'> = {
    n: s.n,
    name: s.name,
    outcome: decision?.outcome ?? 'none',
    verdict: decision?.verdict ?? null,
    headline: decision ? headlineText(decision) : null,
    exitCode: ran.exitCode,
    wallS: round1(wallS),
    prebuildS: round1(prebuildS),
    cost: decision?.cost ?? null,
    cells: (decision?.cells ?? []).map(
      (c) =>
        `${c.id} ${c.metric}: ${c.verdict}${c.likelyRegression ? ' (likely regression)' : ''} (${c.evidence})` +
        (c.deltaPct === null ? '' : ` ${c.deltaPct >= 0 ? '+' : ''}${c.deltaPct.toFixed(2)}%`),
    ),
    planLines: [
      ...new Set(
        text
          .split('\n')
          .filter((l) => /plan changed/i.test(l))
          .map((l) => l.trim()),
      ),
    ],
    planChangedInResults: result ? planChanged(result.plans, s.workload, 'head') : false,
    ...(ran.timedOut || abort.signal.aborted ? { stoppedAfterS: round1(wallS) } : {}),
    out: runDir ?? out,
    at: new Date().toISOString(),
  };
  const done = { ...answer, goal: s.goal, met: s.met(answer) };
  say(
    `${tag} ${done.met ? 'goal met' : 'GOAL MISSED'}: ${done.outcome} in ${done.wallS} s` +
      (done.stoppedAfterS !== undefined ? ` (stopped at the ${timeoutMin}-minute limit)` : '') +
      ` — ${done.headline ?? 'no decision.json'}`,
  );
  return done;
}

async function readJson(file: string): Promise<unknown> {
  return readFile(file, 'utf8')
    .then((t) => JSON.parse(t) as unknown)
    .catch(() => null);
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** The markdown table: one row per scenario, answer first, then what it cost. */
function answersTable(answers: readonly Answer[]): string {
  const cell = (t: string) => t.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const cost = (c: AnswerCost | null) =>
    c ? `build ${c.buildS} s, counted ${c.countedS} s, ${c.timedRounds} rounds ${c.timedS} s` : '-';
  const rows = answers.map((a) => {
    const plan = a.n === 6 ? ` Plan: ${a.planLines[0] ?? 'no "plan changed" line'}` : '';
    return `| ${a.n} ${cell(a.name)} | ${cell(a.goal)} | ${a.met ? 'yes' : '**no**'} | ${cell(a.outcome)}: ${cell(a.headline ?? '-')}${cell(plan)} | ${a.wallS} s${a.stoppedAfterS !== undefined ? ' (stopped)' : ''} | ${a.prebuildS} s | ${cost(a.cost)} |`;
  });
  return [
    '| scenario | goal | met | answer (decision.json) | wall of the run | head build before it | cost (decision.json) |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'pgperf-bench-answers-'));
  await chmod(work, 0o755);
  say(`work directory (kept: results, stdout, stderr per scenario): ${work}`);
  say(`preparing the PostgreSQL 18 repository (${path.join(cacheDir, 'repos', REPO_NAME)})`);
  const repo = await preparePgSourceRepo({ major: 18, dir: path.join(cacheDir, 'repos', REPO_NAME) });
  say(
    `base ${repo.baseSha.slice(0, 12)} (${path.basename(repo.tarball)}); cache ${cacheDir}; load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );

  const answers: Answer[] = [];
  for (const s of chosen) {
    if (abort.signal.aborted) break;
    answers.push(await runScenario(s, repo.dir, work));
  }

  process.stdout.write(`\n${answersTable(answers)}\n\n`);
  for (const a of answers)
    process.stdout.write(`${a.n} ${a.name}: ${a.cells.join('; ') || 'no gated cells'}\n`);

  const previous = ((await readJson(values.json)) as { answers?: Answer[] } | null)?.answers ?? [];
  const merged = [...previous.filter((p) => !answers.some((a) => a.n === p.n)), ...answers].sort(
    (a, b) => a.n - b.n,
  );
  await mkdir(path.dirname(values.json), { recursive: true });
  await writeFile(
    values.json,
    `${JSON.stringify(
      {
        machine: {
          cpus: os.availableParallelism(),
          loadAvgAtEnd: os.loadavg().map(round1),
          kernel: os.release(),
        },
        answers: merged,
      },
      null,
      2,
    )}\n`,
  );
  say(`written ${values.json}`);
}

main().catch((e: unknown) => {
  process.stderr.write(`bench/default-answers: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
