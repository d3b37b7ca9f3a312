/**
 * The sizes anyone may ask pgperf for, each with its range, defined once. A CLI flag, an Action input, a
 * workload file field and a word of a `/pgperf` comment that give the same size check the same bound,
 * while they are parsed, before anything starts: no number can make pgperf build a plan it cannot hold
 * (the run order is materialised per round, rounds x cells x arms), start more processes than the machine
 * and PostgreSQL allow, load a data set no runner's disk holds, or arm a timer that Node cannot keep
 * (setTimeout holds at most 2^31 - 1 ms, about 24.8 days, and fires at once beyond it).
 *
 * Each bound says why it is where it is. Pure values: the adapters word the messages (the flag, input,
 * field or command word, the bad value and `rangeText` of the bound). docs/cli.md, docs/action.md (from
 * action.yml), docs/workloads.md and docs/pr-commands.md state the same ranges.
 */

/** An inclusive range of whole numbers. */
export interface Bound {
  readonly min: number;
  readonly max: number;
}

/**
 * Rounds of a run: a workload's `rounds`, --rounds, --max-rounds, each --schedule look, the Action's
 * `rounds` and `max-rounds`, `/pgperf run rounds=`. The plan holds every run of every round and
 * results.json, written again after every run, holds every sample: 1000 rounds of 10 cells and 2 arms are
 * 20,000 samples, tens of MB rewritten after each run. 1000 rounds resolve a change about 7x smaller than
 * 20 do (a confidence interval narrows as 1/sqrt(n)); past that the runner's drift, not the number of
 * rounds, limits what a comparison sees.
 */
export const ROUNDS: Bound = { min: 1, max: 1000 };

/** Hours between nightly runs a history expects (--expect-every, input expect-every): up to a month. */
export const EXPECT_EVERY_HOURS: Bound = { min: 1, max: 24 * 31 };

/**
 * Commits a nightly backfills before its head (--backfill, input backfill): each is built and measured
 * like a night (minutes to an hour each), so 100 is days of runner time already; a longer history is
 * better grown a night at a time.
 */
export const BACKFILL_COMMITS: Bound = { min: 1, max: 100 };

/**
 * Commits an attribution searches (`pgperf attribute`: after --from, up to --to, on the first-parent line).
 * Splitting finds each commit that moved the count in about log2(range) counts, so even 5000 commits (more
 * than a PostgreSQL release's first-parent history) take about 13 per culprit; past that the range is a
 * question of several releases, better asked one release at a time.
 */
export const ATTRIBUTE_COMMITS: Bound = { min: 1, max: 5000 };

/**
 * Commits an attribution counts at most (--max-commits): the ends and every middle it splits at. Each is
 * a build and a counting server (minutes under cachegrind), so 1000 is days of runner time already.
 */
export const ATTRIBUTE_COUNTED: Bound = { min: 2, max: 1000 };

/** Days an untriaged regression waits before it is raised again (--raise-after, input raise-after). */
export const RAISE_AFTER_DAYS: Bound = { min: 1, max: 365 };
/** Bisections the nightly starts without a label in any 7 days (0: none). */
export const AUTO_BISECT_PER_WEEK: Bound = { min: 0, max: 50 };

/**
 * Rounds of the confirmation block that measures a regressed cell again (--confirm-rounds, the Action's
 * `confirm-rounds`; 0: none) and of the stored-baseline sentinel (--sentinel-rounds): rounds like any
 * other, so the same ceiling.
 */
export const EXTRA_ROUNDS: Bound = { min: 0, max: ROUNDS.max };

/**
 * Clients of one cell (each entry of a workload's `clients`, bisect's --clients and `clients`, the
 * Action's `client-counts`, `/pgperf run clients=`, `<workload>@<clients>`). Every client is a connection,
 * so a PostgreSQL backend process of its own, plus a socket in pgbench or a thread in sysbench: 10,000
 * backends per measured server already take 10,000 processes (the kernel's default pid_max is 32768 on
 * many systems) and gigabytes of backend memory, and max_connections, which pgperf sizes to the largest
 * count, is capped by PostgreSQL at 262,143 (MAX_BACKENDS).
 */
export const CLIENTS: Bound = { min: 1, max: 10_000 };

/**
 * Entries of a client-count sweep (a workload's `clients`, `client-counts`, `clients=`). Each entry is a
 * cell that every arm measures in every round, so the plan grows with it; 1, 2, 4, ... up to the
 * largest client count is 14 entries, `clients: auto` a few more.
 */
export const CLIENT_COUNTS: Bound = { min: 1, max: 100 };

/** pgbench -j (a workload's `threads`): a thread drives at least one client, so no more than clients. */
export const THREADS: Bound = { min: 1, max: CLIENTS.max };

/**
 * pgbench scale (a workload's `scale`): 100,000 pgbench_accounts rows per unit, about 15 MB with its
 * index, so 100,000 is about 1.5 TB, loaded into every arm's cluster: more than a benchmark runner's
 * disk. (pgbench switches the account ids to bigint from scale 20,000.)
 */
export const SCALE: Bound = { min: 1, max: 100_000 };

/**
 * pgbench -i --partitions (a workload's `init.partitions`; 0: not partitioned): each partition is a
 * table and an index in every cluster, created one by one by the load; by thousands the catalogue, not the
 * data, is what a run measures.
 */
export const PARTITIONS: Bound = { min: 0, max: 10_000 };

/** sysbench --tables (a workload's `tables`): prepare creates and loads them one by one in every cluster. */
export const SYSBENCH_TABLES: Bound = { min: 1, max: 1000 };

/**
 * sysbench --table-size (a workload's `tableSize`), rows per table: the id column sysbench creates on
 * PostgreSQL is a 4-byte SERIAL (at most 2,147,483,647), and 10^9 rows of about 200 bytes are some
 * 200 GB per table.
 */
export const SYSBENCH_TABLE_SIZE: Bound = { min: 1, max: 1_000_000_000 };

/**
 * Rows of all sysbench tables together (tables x tableSize): 10^10, the rows of pgbench at the largest
 * scale, so the data set stays within the same terabyte-and-a-half.
 */
export const SYSBENCH_ROWS: Bound = { min: 1, max: 10_000_000_000 };

/**
 * Seconds of one measured run (a workload's `duration`, --duration, the Action's `duration`). A run is
 * killed when it overruns by a Node timer; one day is longer than any steady state takes to show, longer
 * than a hosted CI job may last (6 h), and far inside the timer's 24.8 days.
 */
export const DURATION_S: Bound = { min: 1, max: 86_400 };

/** Seconds of the uncounted warm-up run (a workload's `warmup`; 0: none): a run like a measured one. */
export const WARMUP_S: Bound = { min: 0, max: DURATION_S.max };

/**
 * Seconds of measurement an adaptive run may spend (--time-budget, the Action's `time-budget`): a week,
 * past any CI job's limit (GitHub: 6 h hosted, 5 days self-hosted) and inside the timer's 24.8 days.
 */
export const TIME_BUDGET_S: Bound = { min: 1, max: 7 * 86_400 };

/**
 * Transactions of the instruction mode's short, long and warm-up runs (a workload's `instructions.short`,
 * `.long`, `.warmup`). Under cachegrind a transaction runs some 50x slower, about a millisecond for
 * tpcb-like: 100,000 take minutes per run, times repetitions, arms and cells (the default long run is 1,200).
 */
export const INSTRUCTION_TRANSACTIONS: Bound = { min: 0, max: 100_000 };

/** Repetitions per arm of the instruction mode (`instructions.repetitions`): each one is a short and a long run. */
export const INSTRUCTION_REPETITIONS: Bound = { min: 1, max: 20 };

/**
 * Retries of a failed run (a workload's `retries`): a run that fails ten times in a row fails for a
 * reason that an eleventh try does not change, and every retry is a whole run.
 */
export const RETRIES: Bound = { min: 0, max: 10 };

/**
 * Measurements of one bisection step while it is inconclusive (bisect's --tries), each with twice the
 * rounds of the one before: the fifth already measures 16x the first.
 */
export const BISECT_TRIES: Bound = { min: 1, max: 5 };

/**
 * Characters of a workload's `name` (the name rule of every workload file). The name becomes part of
 * file names and ids: the Reproduce block writes `reproduce-<name>.yml`, and a settings matrix names each
 * combination `<name>[setting=value,...]`, which history series, profiles and `<workload>@<clients>`
 * selectors carry. Most file systems take 255 bytes per file name: a name of thousands of characters made
 * the Reproduce block fail with "File name too long". 64 is more than twice the longest shipped name
 * (sysbench-oltp-point-select, 26) and still leaves a combination's settings room in a file name.
 */
export const WORKLOAD_NAME_LENGTH: Bound = { min: 1, max: 64 };

/**
 * Messages of one mailbox given as a patch (--patch, --head-patch, --base-patch, input `patches`), as git
 * mailsplit counts them. A thread saved whole from the list holds the cover letter and every reply beside
 * the patches, and git am skips each message without a diff with a process of its own: about 35 ms each
 * on a 2-vCPU runner (1000 replies took 34 s), so 5000 messages are some three minutes before the build.
 * The longest pgsql-hackers threads run to hundreds of messages, rarely past a thousand.
 */
export const MAILBOX_MESSAGES: Bound = { min: 1, max: 5000 };

/**
 * Runs one comparison plans, all factors multiplied: workload files x matrix combinations x client counts
 * (the cells) x rounds (with the confirmation or sentinel rounds) x arms. Each factor has its own bound
 * above, but their product does not follow from them: 10 files of 64 combinations x 100 client counts x
 * 1000 rounds x 2 arms are 128 million runs. The plan is materialised before the first server starts (an
 * object per run: gigabytes at that size, built in one synchronous loop that no signal interrupts), and
 * results.json, written again after every run, holds every sample: 20,000 runs (1000 rounds of 10 cells
 * and 2 arms, the size ROUNDS was set for) are tens of MB rewritten after each one. Checked before anything
 * is built or started, naming the product and its factors (src/run/plan-size.ts).
 */
export const PLANNED_RUNS: Bound = { min: 1, max: 20_000 };

/**
 * Seconds of measurement one comparison plans (runs x their duration, plus the warm-ups; VACUUM,
 * CHECKPOINT, builds and restarts come on top): a week, as TIME_BUDGET_S, past any CI job's limit
 * (GitHub: 6 h hosted, 5 days self-hosted). A plan that long is a typo, not a benchmark, and is refused
 * before anything starts rather than cancelled days later.
 */
export const PLANNED_SECONDS: Bound = { min: 0, max: TIME_BUDGET_S.max };

/** Every bound by name (for docs and tests that walk them). */
export const BOUNDS = {
  ROUNDS,
  EXTRA_ROUNDS,
  CLIENTS,
  CLIENT_COUNTS,
  THREADS,
  SCALE,
  PARTITIONS,
  SYSBENCH_TABLES,
  SYSBENCH_TABLE_SIZE,
  SYSBENCH_ROWS,
  DURATION_S,
  WARMUP_S,
  TIME_BUDGET_S,
  INSTRUCTION_TRANSACTIONS,
  INSTRUCTION_REPETITIONS,
  RETRIES,
  BISECT_TRIES,
  ATTRIBUTE_COMMITS,
  ATTRIBUTE_COUNTED,
  WORKLOAD_NAME_LENGTH,
  MAILBOX_MESSAGES,
  PLANNED_RUNS,
  PLANNED_SECONDS,
} as const satisfies Record<string, Bound>;

/** "from 1 to 1000": the range as messages and docs state it. */
export function rangeText(bound: Bound): string {
  return `from ${bound.min} to ${bound.max}`;
}

/** Whether `n` is a whole number inside the bound. */
export function withinBound(n: number, bound: Bound): boolean {
  return Number.isInteger(n) && n >= bound.min && n <= bound.max;
}
