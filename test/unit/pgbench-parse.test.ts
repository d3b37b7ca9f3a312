/**
 * pgbench output parsing against real captured runs (test/fixtures/pgbench/<client>-vs-<server>/, see
 * the README there). Every expected number below was read off the captured text by hand, not produced
 * by the parser, so a parser bug or a format drift fails here.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePgbenchAggregateLog } from '../../src/drivers/pgbench/parse-aggregate-log.js';
import type { AggregateInterval } from '../../src/drivers/pgbench/parse-aggregate-log.js';
import { parsePgbenchProgress } from '../../src/drivers/pgbench/parse-progress.js';
import type { PgbenchProgressPoint } from '../../src/drivers/pgbench/parse-progress.js';
import { parsePgbenchReport } from '../../src/drivers/pgbench/parse-report.js';
import type {
  PgbenchReport,
  PgbenchScriptStats,
  PgbenchStatement,
} from '../../src/drivers/pgbench/parse-report.js';
import { judgePgbenchRun } from '../../src/drivers/pgbench/pgbench-judge-run.js';
import type { FixtureMeta } from '../helpers/fixtures.js';

const ROOT = new URL('../fixtures/pgbench/', import.meta.url);

interface Fixture {
  id: string;
  dir: string;
  name: string;
  stdout: string;
  stderr: string;
  log?: string;
  meta: FixtureMeta;
}

function read(rel: string): string {
  return readFileSync(new URL(rel, ROOT), 'utf8');
}

const DIRS = readdirSync(ROOT).filter((d) => /^\d+-vs-\d+$/.test(d));

function loadFixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const dir of DIRS) {
    for (const file of readdirSync(new URL(`${dir}/`, ROOT))) {
      if (!file.endsWith('.json')) continue;
      const name = file.slice(0, -'.json'.length);
      const fx: Fixture = {
        id: `${dir}/${name}`,
        dir,
        name,
        stdout: read(`${dir}/${name}.stdout`),
        stderr: read(`${dir}/${name}.stderr`),
        meta: JSON.parse(read(`${dir}/${name}.json`)) as FixtureMeta,
      };
      if (existsSync(new URL(`${dir}/${name}.log`, ROOT))) fx.log = read(`${dir}/${name}.log`);
      out.push(fx);
    }
  }
  return out;
}

const FIXTURES = loadFixtures();

function fixture(id: string): Fixture {
  const fx = FIXTURES.find((f) => f.id === id);
  if (!fx) throw new Error(`no fixture ${id}`);
  return fx;
}

/** The value of an option in the recorded argv ("-c 4" or "--max-tries=3"). */
function argOf(argv: string[], short: string, long?: string): string | undefined {
  const i = argv.indexOf(short);
  if (i >= 0) return argv[i + 1];
  const eq = long ? argv.find((a) => a.startsWith(`${long}=`)) : undefined;
  return eq?.slice(long!.length + 1);
}

type ReportFields = Omit<Partial<PgbenchReport>, 'scripts' | 'statements' | 'unparsed'>;

interface Expectation {
  report: ReportFields;
  scripts?: Partial<PgbenchScriptStats>[];
  /** Number of -r rows, and some rows by index. */
  statements?: { count: number; rows?: Record<number, PgbenchStatement> };
  progress?: { count: number; first: PgbenchProgressPoint; last?: Partial<PgbenchProgressPoint> };
  /** The first interval of the aggregate log (-l --aggregate-interval 1); every capture has 3 (3 s runs). */
  aggregate?: AggregateInterval;
  /** What the judge says of the run; absent: it accepts it. */
  judge?: { ok: true } | { ok: false; reason: RegExp };
}

const OK = { ok: true } as const;
const NO_REPORT = { empty: true, transactionType: undefined, tps: undefined, processed: undefined };

/** The judge refuses the run with a reason that matches. */
const refused = (reason: RegExp) => ({ ok: false, reason }) as const;

/** The judge refuses a run whose clients aborted; `clients` is "N of M", `first` matches the first abort. */
const aborted = (clients: string, first: RegExp) =>
  refused(new RegExp(`^run aborted \\(exit code 2\\): ${clients} clients aborted; first: ${first.source}`));

/** The first abort of scripts/partial-abort.sql: its \set as 13 to 15 word it, its division as 18 does. */
const SET_FAILED = /client 2 aborted in command 4 \(set\) of script 0; evaluation of meta-command failed$/;
const DIVISION_BY_ZERO = /client 1 script 0 aborted in command 2 query 0: ERROR: division by zero$/;

/** The first abort of scripts/missing-table.sql, by client `client`. */
const missingTable = (client: number) =>
  new RegExp(
    `client ${client} script 0 aborted in command 0 query 0: ERROR: relation "pgperf_no_such_table" does not exist$`,
  );

/** pgbench could not connect: no report, and the judge names the connection error. */
const connectionFailure = (error: RegExp): Expectation => ({
  report: NO_REPORT,
  judge: refused(new RegExp(`^pgbench setup or connection failure \\(exit code 1\\): ${error.source}`)),
});

/** Sum, sum of squares, minimum and maximum of an interval's latencies in µs, in the log's column order. */
const latencyUs = (sum: number, sum2: number, min: number, max: number) => ({
  latencySumUs: sum,
  latencySum2Us: sum2,
  latencyMinUs: min,
  latencyMaxUs: max,
});

/** The same four columns for the schedule lag (-R). */
const lagUs = (sum: number, sum2: number, min: number, max: number) => ({
  lagSumUs: sum,
  lagSum2Us: sum2,
  lagMinUs: min,
  lagMaxUs: max,
});

type UsColumns = [sum: number, sum2: number, min: number, max: number];

/**
 * A line of the -r report of script `script`: its latency (ms) and command, and the failures (15 and later)
 * and retries (with --max-tries) the version prints.
 */
const statementLine = (
  script: number,
  latencyMs: number,
  command: string,
  counts: { failures?: number; retries?: number } = {},
): PgbenchStatement => ({ script, latencyMs, ...counts, command });

/** Commands of the scripts run, as -r prints them. */
const SET_AID = '\\set aid random(1, 100000 * :scale)';
const ACCOUNT_SELECT = 'SELECT abalance FROM pgbench_accounts WHERE aid = :aid;';
const ACCOUNT_UPDATE = 'UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;';
/** The update of scripts/serialization.sql and scripts/deadlock.sql, of the row `id`. */
const hotUpdate = (id: string) => `UPDATE pgperf_hot SET v = v + 1 WHERE id = ${id};`;

/**
 * A progress line (-P) in its column order: seconds since the start, tps, latency average and stddev (ms);
 * then what the version and options add (failed from 15; lagMs and skipped with -R; retried and retries;
 * epochSeconds with --progress-timestamp).
 */
const progressLine = (
  t: number,
  tps: number,
  latencyAvgMs: number,
  latencyStddevMs: number,
  more: Partial<PgbenchProgressPoint> = {},
): PgbenchProgressPoint => ({ t, tps, latencyAvgMs, latencyStddevMs, ...more });

/**
 * A line of the 15-column log (15 and later) in its column order: interval start, transactions, latency,
 * lag, skipped. The last four columns (retried, retries, serialization and deadlock failures) are 0 in
 * every capture here.
 */
function interval15(
  intervalStart: number,
  transactions: number,
  latency: UsColumns,
  lag: UsColumns,
  skipped: number,
): AggregateInterval {
  return {
    intervalStart,
    transactions,
    ...latencyUs(...latency),
    ...lagUs(...lag),
    skipped,
    retried: 0,
    retries: 0,
    serializationFailures: 0,
    deadlockFailures: 0,
    columns: 15,
  };
}

const EXPECTED: Record<string, Record<string, Expectation>> = {
  // pgbench 13.16 (built from Debian bullseye's source) against server 15.18: no banner, two tps lines,
  // "(x.xxx %)" with a space, no failure lines, 6/11-column aggregate logs.
  '13-vs-15': {
    'select-only': {
      report: {
        empty: false,
        clientVersion: undefined,
        serverVersion: undefined,
        transactionType: '<builtin: select only>',
        scalingFactor: 2,
        queryMode: 'prepared',
        maxTries: undefined,
        processed: 239256,
        failed: undefined,
        latencyAvgMs: 0.025,
        latencyStddevMs: 0.042,
        initialConnectionTimeMs: undefined,
        tps: 79845.229792,
        tpsKind: 'excluding-connections',
        tpsIncludingConnections: 79679.938208,
      },
      progress: {
        count: 3,
        first: progressLine(1, 81901.3, 0.024, 0.059),
        last: { t: 3, tps: 81844.3, failed: undefined },
      },
    },
    'tpcb-r': {
      report: {
        transactionType: '<builtin: TPC-B (sort of)>',
        processed: 9490,
        latencyAvgMs: 0.424,
        latencyStddevMs: undefined,
        tps: 4737.849802,
        tpsIncludingConnections: 4722.200945,
      },
      statements: {
        count: 11,
        rows: {
          0: statementLine(1, 0.001, SET_AID),
          5: statementLine(1, 0.053, ACCOUNT_UPDATE),
          10: statementLine(1, 0.072, 'END;'),
        },
      },
    },
    'rate-limit': {
      report: {
        processed: 625,
        skipped: 2,
        skippedPercent: 0.319,
        latencyLimitMs: 1,
        late: 78,
        lateOutOf: 625,
        latePercent: 12.48,
        latencyAvgMs: 0.785,
        latencyStddevMs: 0.294,
        lagAvgMs: 0.183,
        lagMaxMs: 1.613,
        tps: 208.942298,
        tpsIncludingConnections: 208.299807,
      },
      progress: {
        count: 3,
        first: progressLine(1, 211, 0.827, 0.407, { lagMs: 0.188, skipped: 2 }),
        last: { t: 3, tps: 224.1, lagMs: 0.19, skipped: 0 },
      },
    },
    aborted: {
      report: {
        transactionType: 'scripts/partial-abort.sql',
        transactionsPerClient: 3000,
        processed: 8998,
        plannedTransactions: 12000,
        tps: 25452.890795,
      },
      judge: aborted('2 of 4', SET_FAILED),
    },
    'aborted-all': {
      report: { transactionType: 'scripts/missing-table.sql', processed: 0, tps: undefined },
      judge: aborted('2 of 2', missingTable(0)),
    },
    partitioned: {
      report: { partitionMethod: 'range', partitions: 2, processed: 76224, tps: 38199.62461 },
    },
    connect: {
      // <= 13 has no -C wording of its own: both lines as usual, the "excluding" one is the headline.
      report: {
        processed: 377,
        latencyAvgMs: 10.693,
        averageConnectionTimeMs: undefined,
        tps: 654.394759,
        tpsKind: 'excluding-connections',
        tpsIncludingConnections: 187.031907,
      },
    },
    weighted: {
      report: { transactionType: 'multiple scripts', processed: 65398, tps: 32821.122959 },
      scripts: [
        {
          index: 1,
          name: '<builtin: select only>',
          weight: 9,
          weightPercent: 90,
          transactions: 58837,
          transactionsPercent: 90,
          processed: 58837,
          tps: 29372.591022,
          failed: undefined,
          latencyAvgMs: 0.039,
          latencyStddevMs: 0.142,
        },
        {
          index: 2,
          name: '<builtin: simple update>',
          weight: 1,
          weightPercent: 10,
          transactions: 6513,
          transactionsPercent: 10,
          tps: 3251.418076,
          latencyAvgMs: 0.203,
          latencyStddevMs: 0.395,
        },
      ],
      statements: {
        count: 11,
        rows: {
          1: statementLine(1, 0.039, ACCOUNT_SELECT),
          2: statementLine(2, 0, SET_AID),
        },
      },
    },
    transactions: {
      report: {
        durationSeconds: undefined,
        transactionsPerClient: 100,
        processed: 200,
        plannedTransactions: 200,
        tps: 30723.358432,
      },
    },
    agglog: {
      report: { threads: 1, processed: 87062, tps: 29045.887651 },
      aggregate: {
        intervalStart: 1795352464,
        transactions: 28726,
        ...latencyUs(1929060, 236113194, 22, 5575),
        columns: 6,
      },
    },
    'agglog-rate': {
      report: { processed: 1487, skipped: 4, skippedPercent: 0.268, late: 30, tps: 496.199636 },
      aggregate: {
        intervalStart: 1795352467,
        transactions: 449,
        ...latencyUs(140120, 60554946, 81, 1827),
        ...lagUs(48837, 8266351, 0, 1318),
        skipped: 2,
        columns: 11,
      },
    },
    'progress-timestamp': {
      report: { processed: 165933, latencyStddevMs: 0.042, tps: 55349.803007 },
      progress: {
        count: 3,
        first: progressLine(1, 55536.2, 0.036, 0.026, { epochSeconds: 1795352471.323 }),
        last: { t: 3, epochSeconds: 1795352473.323 },
      },
    },
    'connection-failure': connectionFailure(
      /connection to database "bench" failed: could not connect to server: No such file or directory$/,
    ),
  },

  // pgbench 15.18 (Debian package) against server 15.18.
  '15-vs-15': {
    'select-only': {
      report: {
        empty: false,
        clientVersion: '15.18 (Debian 15.18-0+deb12u1)',
        clientMajor: 15,
        serverVersion: undefined,
        transactionType: '<builtin: select only>',
        scalingFactor: 2,
        partitionMethod: undefined,
        queryMode: 'prepared',
        maxTries: 1,
        durationSeconds: 3,
        processed: 188029,
        plannedTransactions: undefined,
        failed: 0,
        failedPercent: 0,
        serializationFailures: undefined,
        retried: undefined,
        skipped: undefined,
        latencyAvgMs: 0.032,
        latencyIncludesFailures: false,
        latencyStddevMs: 0.153,
        initialConnectionTimeMs: 6.872,
        tps: 62712.413875,
        tpsKind: 'without-initial-connection',
        tpsIncludingConnections: undefined,
      },
      progress: {
        count: 2,
        first: progressLine(1, 59417.6, 0.033, 0.142, { failed: 0 }),
        last: { t: 2, tps: 61046.4, latencyStddevMs: 0.163 },
      },
    },
    'tpcb-r': {
      report: { processed: 7018, latencyAvgMs: 0.57, latencyStddevMs: undefined, tps: 3511.811205 },
      statements: {
        count: 11,
        rows: {
          5: statementLine(1, 0.076, ACCOUNT_UPDATE, { failures: 0 }),
          10: statementLine(1, 0.082, 'END;', { failures: 0 }),
        },
      },
    },
    'rate-limit': {
      report: {
        processed: 529,
        failed: 0,
        skipped: 63,
        skippedPercent: 10.642,
        latencyLimitMs: 1,
        late: 161,
        lateOutOf: 529,
        latePercent: 30.435,
        latencyAvgMs: 1.97,
        latencyStddevMs: 5.769,
        lagAvgMs: 0.606,
        lagMaxMs: 78.846,
        initialConnectionTimeMs: 10.154,
        tps: 176.267644,
      },
      progress: {
        count: 2,
        first: progressLine(1, 177.9, 1.413, 6.718, { failed: 0, lagMs: 0.71, skipped: 14 }),
        last: { t: 2, lagMs: 0.833, skipped: 30 },
      },
    },
    failures: {
      report: {
        transactionType: 'multiple scripts',
        scalingFactor: 1,
        queryMode: 'simple',
        clients: 4,
        maxTries: 3,
        processed: 255,
        failed: 37,
        failedPercent: 12.671,
        serializationFailures: 4,
        deadlockFailures: 33,
        otherFailures: undefined,
        retried: 110,
        totalRetries: 182,
        latencyAvgMs: 31.744,
        latencyIncludesFailures: false,
        latencyStddevMs: 42.834,
        tps: 85.169032,
      },
      scripts: [
        {
          index: 1,
          name: 'scripts/serialization.sql',
          weight: 1,
          weightPercent: 50,
          transactions: 145,
          transactionsPercent: 56.9,
          processed: 145,
          tps: 48.42945,
          failed: 4,
          failedPercent: 2.685,
          serializationFailures: 4,
          deadlockFailures: 0,
          retried: 18,
          totalRetries: 29,
          latencyAvgMs: 3.027,
          latencyStddevMs: 1.726,
        },
        {
          index: 2,
          name: 'scripts/deadlock.sql',
          transactions: 110,
          processed: 110,
          tps: 36.739582,
          failed: 33,
          failedPercent: 23.077,
          serializationFailures: 0,
          deadlockFailures: 33,
          retried: 92,
          totalRetries: 153,
          latencyAvgMs: 69.598,
        },
      ],
      statements: {
        count: 11,
        rows: {
          3: statementLine(1, 0.162, hotUpdate('1'), { failures: 4, retries: 29 }),
          7: statementLine(2, 16.468, hotUpdate('1 + :a'), { failures: 13, retries: 59 }),
          9: statementLine(2, 18.956, hotUpdate('4 - :a'), { failures: 20, retries: 95 }),
        },
      },
      progress: {
        count: 3,
        first: progressLine(1, 98, 26.606, 40.34, { failed: 11, retried: 38, retries: 64 }),
        last: { t: 3, failed: 14, retried: 39, retries: 66 },
      },
      judge: refused(/^37 failed transactions \(12\.671%\): serialization 4, deadlock 33$/),
    },
    aborted: {
      report: {
        transactionsPerClient: 3000,
        processed: 8998,
        plannedTransactions: 12000,
        failed: 0,
        tps: 37022.102994,
      },
      judge: aborted('2 of 4', SET_FAILED),
    },
    'aborted-all': {
      // 15-17 still print the failed line when nothing ran, with "(NaN%)".
      report: {
        empty: false,
        processed: 0,
        failed: 0,
        failedPercent: NaN,
        latencyAvgMs: undefined,
        tps: undefined,
      },
      judge: aborted('2 of 2', missingTable(1)),
    },
    partitioned: {
      report: { partitionMethod: 'range', partitions: 2, processed: 98296, tps: 49205.742939 },
    },
    connect: {
      report: {
        processed: 555,
        latencyAvgMs: 7.223,
        initialConnectionTimeMs: undefined,
        averageConnectionTimeMs: 5.49,
        tps: 276.909767,
        tpsKind: 'including-reconnection',
      },
    },
    weighted: {
      report: { transactionType: 'multiple scripts', processed: 85362, tps: 42665.555069 },
      scripts: [
        {
          index: 1,
          name: '<builtin: select only>',
          weight: 9,
          weightPercent: 90,
          transactions: 76819,
          transactionsPercent: 90,
          processed: 76819,
          tps: 38395.600793,
          failed: 0,
          failedPercent: 0,
          latencyAvgMs: 0.032,
          latencyStddevMs: 0.152,
        },
        {
          index: 2,
          name: '<builtin: simple update>',
          weight: 1,
          transactions: 8537,
          processed: 8537,
          tps: 4266.955362,
          latencyAvgMs: 0.151,
          latencyStddevMs: 0.299,
        },
      ],
      statements: {
        count: 11,
        rows: {
          1: statementLine(1, 0.032, ACCOUNT_SELECT, { failures: 0 }),
        },
      },
    },
    transactions: {
      report: { transactionsPerClient: 100, processed: 200, plannedTransactions: 200, tps: 13421.917992 },
    },
    agglog: {
      report: { threads: 1, processed: 109502, tps: 36767.562402 },
      aggregate: interval15(1795352368, 16457, [1126495, 785326173, 20, 8634], [0, 0, 0, 0], 0),
    },
    'agglog-rate': {
      report: { processed: 1493, skipped: 10, late: 95, lateOutOf: 1493, tps: 499.755311 },
      aggregate: interval15(1795352371, 171, [107589, 222308721, 64, 6802], [36531, 56012599, 10, 3517], 4),
    },
    'progress-timestamp': {
      report: { processed: 98607, tps: 32967.429756 },
      progress: {
        count: 2,
        first: progressLine(1, 27433.7, 0.072, 0.229, { epochSeconds: 1795352375.89, failed: 0 }),
        last: { t: 2, tps: 32722 },
      },
    },
    'connection-failure': connectionFailure(
      /connection to server on socket ".*\/\.s\.PGSQL\.55416" failed: No such file or directory$/,
    ),
  },

  // pgbench 18.6 (built from source) against server 18.6: new per-script block, no failed line when
  // nothing ran, --exit-on-abort.
  '18-vs-18': {
    'select-only': {
      report: {
        clientVersion: '18.6',
        clientMajor: 18,
        serverVersion: undefined,
        processed: 145323,
        failed: 0,
        latencyAvgMs: 0.041,
        latencyStddevMs: 0.172,
        initialConnectionTimeMs: 20.696,
        tps: 48726.733566,
        tpsKind: 'without-initial-connection',
      },
      progress: {
        count: 2,
        first: progressLine(1, 54496.2, 0.036, 0.19, { failed: 0 }),
        last: { t: 2, tps: 37680.7 },
      },
    },
    'tpcb-r': {
      report: { processed: 17110, latencyAvgMs: 0.234, tps: 8546.748115 },
      statements: {
        count: 11,
        rows: {
          5: statementLine(1, 0.023, ACCOUNT_UPDATE, { failures: 0 }),
          10: statementLine(1, 0.027, 'END;', { failures: 0 }),
        },
      },
    },
    'rate-limit': {
      report: {
        processed: 594,
        skipped: 0,
        skippedPercent: 0,
        late: 15,
        lateOutOf: 594,
        latePercent: 2.525,
        lagAvgMs: 0.166,
        lagMaxMs: 0.938,
        tps: 198.735387,
      },
      progress: {
        count: 2,
        first: progressLine(1, 192, 0.752, 0.38, { failed: 0, lagMs: 0.181, skipped: 0 }),
      },
    },
    failures: {
      report: {
        maxTries: 3,
        processed: 318,
        failed: 47,
        failedPercent: 12.877,
        serializationFailures: 11,
        deadlockFailures: 36,
        retried: 126,
        totalRetries: 199,
        latencyAvgMs: 24.505,
        tps: 105.498915,
      },
      scripts: [
        {
          index: 1,
          name: 'scripts/serialization.sql',
          weight: 1,
          weightPercent: 50,
          // 18 counts failed and skipped transactions in "N transactions" and prints processed apart.
          transactions: 192,
          transactionsPercent: 52.6,
          processed: 181,
          tps: 60.048125,
          failed: 11,
          failedPercent: 5.729,
          serializationFailures: 11,
          deadlockFailures: 0,
          retried: 29,
          totalRetries: 49,
          latencyAvgMs: 3.024,
          latencyStddevMs: 1.462,
        },
        {
          index: 2,
          name: 'scripts/deadlock.sql',
          transactions: 173,
          transactionsPercent: 47.4,
          processed: 137,
          tps: 45.450791,
          failed: 36,
          deadlockFailures: 36,
          retried: 97,
          totalRetries: 150,
        },
      ],
      statements: {
        count: 11,
        rows: {
          3: statementLine(1, 0.136, hotUpdate('1'), { failures: 11, retries: 49 }),
          9: statementLine(2, 15.861, hotUpdate('4 - :a'), { failures: 19, retries: 95 }),
        },
      },
      progress: {
        count: 3,
        first: progressLine(1, 106, 22.419, 30.448, { failed: 16, retried: 40, retries: 64 }),
      },
      judge: refused(/^47 failed transactions \(12\.877%\): serialization 11, deadlock 36$/),
    },
    aborted: {
      report: { processed: 8998, plannedTransactions: 12000, tps: 44882.954154 },
      judge: aborted('2 of 4', DIVISION_BY_ZERO),
    },
    'aborted-all': {
      // 18 returns before the failed line when nothing ran; stderr lines of the two threads are spliced.
      report: { empty: false, processed: 0, failed: undefined, tps: undefined },
      judge: aborted('2 of 2', missingTable(1)),
    },
    'exit-on-abort': {
      report: { empty: true, clientVersion: '18.6', transactionType: undefined, tps: undefined },
      judge: aborted('1 of 4', DIVISION_BY_ZERO),
    },
    partitioned: {
      report: { partitionMethod: 'range', partitions: 2, processed: 63654, tps: 31900.242958 },
    },
    connect: {
      report: {
        processed: 461,
        averageConnectionTimeMs: 5.824,
        tps: 229.8399,
        tpsKind: 'including-reconnection',
      },
    },
    weighted: {
      report: { processed: 79154, tps: 39697.760588 },
      scripts: [
        {
          index: 1,
          name: '<builtin: select only>',
          weight: 9,
          weightPercent: 90,
          transactions: 71240,
          transactionsPercent: 90,
          processed: 71240,
          tps: 35728.686665,
          failed: 0,
          latencyAvgMs: 0.032,
          latencyStddevMs: 0.16,
        },
        {
          index: 2,
          name: '<builtin: simple update>',
          transactions: 7906,
          processed: 7906,
          tps: 3965.061718,
          latencyAvgMs: 0.155,
        },
      ],
      statements: {
        count: 11,
        rows: {
          10: statementLine(2, 0.027, 'END;', { failures: 0 }),
        },
      },
    },
    transactions: {
      report: { transactionsPerClient: 100, processed: 200, plannedTransactions: 200, tps: 10497.034588 },
    },
    agglog: {
      report: { processed: 103349, tps: 34622.490599 },
      aggregate: interval15(1795352401, 6662, [630232, 418051050, 29, 4486], [0, 0, 0, 0], 0),
    },
    'agglog-rate': {
      report: { processed: 1502, skipped: 6, late: 27, tps: 501.594449 },
      aggregate: interval15(1795352404, 99, [33518, 14814834, 91, 1064], [9995, 1161513, 0, 204], 0),
    },
    'progress-timestamp': {
      report: { processed: 166559, tps: 55600.417006 },
      progress: {
        count: 3,
        first: progressLine(1, 51561.2, 0.038, 0.042, { epochSeconds: 1795352409.015, failed: 0 }),
        last: { t: 3.003, epochSeconds: 1795352411.018 },
      },
    },
    'connection-failure': connectionFailure(
      /connection to server on socket ".*\/\.s\.PGSQL\.55419" failed: No such file or directory$/,
    ),
  },

  // pgbench 18.6 against server 15.18: the banner names both versions.
  '18-vs-15': {
    'select-only': {
      report: {
        clientVersion: '18.6',
        clientMajor: 18,
        serverVersion: '15.18 (Debian 15.18-0+deb12u1)',
        processed: 172829,
        latencyStddevMs: 0.182,
        tps: 57747.201251,
      },
      progress: {
        count: 2,
        first: progressLine(1, 52626.4, 0.038, 0.162, { failed: 0 }),
      },
    },
    'tpcb-r': {
      report: { processed: 13838, tps: 6936.29913 },
      statements: {
        count: 11,
        rows: {
          5: statementLine(1, 0.039, ACCOUNT_UPDATE, { failures: 0 }),
        },
      },
    },
    'rate-limit': {
      report: {
        processed: 588,
        skipped: 6,
        skippedPercent: 1.01,
        late: 125,
        latePercent: 21.259,
        tps: 196.701832,
      },
      progress: {
        count: 2,
        first: progressLine(1, 189, 1.052, 0.92, { failed: 0, lagMs: 0.232, skipped: 3 }),
      },
    },
    failures: {
      report: {
        processed: 267,
        failed: 42,
        failedPercent: 13.592,
        serializationFailures: 10,
        deadlockFailures: 32,
        retried: 114,
        totalRetries: 184,
        tps: 88.637855,
      },
      scripts: [
        {
          index: 1,
          transactions: 157,
          processed: 147,
          tps: 48.800617,
          failed: 10,
          retried: 22,
          totalRetries: 37,
        },
        {
          index: 2,
          transactions: 152,
          processed: 120,
          tps: 39.837238,
          failed: 32,
          retried: 92,
          totalRetries: 147,
        },
      ],
      statements: {
        count: 11,
        rows: {
          3: statementLine(1, 0.217, hotUpdate('1'), { failures: 10, retries: 37 }),
        },
      },
      progress: {
        count: 3,
        first: progressLine(1, 93, 24.796, 37.76, { failed: 15, retried: 37, retries: 62 }),
      },
      judge: refused(/^42 failed transactions \(13\.592%\): serialization 10, deadlock 32$/),
    },
    aborted: {
      report: { processed: 8998, plannedTransactions: 12000, tps: 79650.169516 },
      judge: aborted('2 of 4', /client 1 script 0/),
    },
    'aborted-all': {
      report: { empty: false, processed: 0, failed: undefined, tps: undefined },
      judge: aborted('2 of 2', /client 1 script 0/),
    },
    'exit-on-abort': {
      report: { empty: true, clientVersion: '18.6', serverVersion: '15.18 (Debian 15.18-0+deb12u1)' },
      judge: aborted('1 of 4', /client 1 script 0/),
    },
    partitioned: {
      report: { partitionMethod: 'range', partitions: 2, processed: 115776, tps: 57925.796582 },
    },
    connect: {
      report: {
        processed: 573,
        averageConnectionTimeMs: 5.425,
        tps: 285.682519,
        tpsKind: 'including-reconnection',
      },
    },
    weighted: {
      report: { processed: 114246, tps: 57258.301366 },
      scripts: [
        { index: 1, transactions: 102755, transactionsPercent: 89.9, processed: 102755, tps: 51499.192592 },
        { index: 2, transactions: 11481, processed: 11481, tps: 5754.096931, latencyStddevMs: 0.073 },
      ],
      statements: { count: 11 },
    },
    transactions: {
      report: { processed: 200, plannedTransactions: 200, tps: 31685.678074 },
    },
    agglog: {
      report: { processed: 64799, tps: 21635.639523 },
      aggregate: interval15(1795352435, 16964, [1670554, 250376842, 26, 5275], [0, 0, 0, 0], 0),
    },
    'agglog-rate': {
      report: { processed: 1491, skipped: 9, late: 71, tps: 499.955068 },
      aggregate: interval15(1795352438, 262, [177969, 271783817, 131, 5671], [50723, 43571643, 0, 3894], 7),
    },
    'progress-timestamp': {
      report: { processed: 106895, tps: 35671.380804 },
      progress: {
        count: 3,
        first: progressLine(1, 39000.3, 0.051, 0.144, { epochSeconds: 1795352442.646, failed: 0 }),
        last: { t: 3, tps: 38497.1 },
      },
    },
    'connection-failure': connectionFailure(/connection to server on socket ".*55420" failed/),
  },
};

const CASES = FIXTURES.map((f) => [f.id, f] as const);

/** Field-by-field comparison where `undefined` means "absent" (toMatchObject insists on the key). */
function expectFields(actual: object | undefined, expected: object, what: string): void {
  expect(actual, what).toBeDefined();
  for (const [key, value] of Object.entries(expected)) {
    expect((actual as Record<string, unknown>)[key], `${what}.${key}`).toEqual(value);
  }
}

describe('pgbench fixtures', () => {
  it('covers at least 13, 15 and 18, with every fixture expected and every expectation captured', () => {
    expect(DIRS.sort()).toEqual(['13-vs-15', '15-vs-15', '18-vs-15', '18-vs-18']);
    const captured = FIXTURES.map((f) => f.id).sort();
    const expected = Object.entries(EXPECTED)
      .flatMap(([dir, cases]) => Object.keys(cases).map((c) => `${dir}/${c}`))
      .sort();
    expect(captured).toEqual(expected);
  });

  it.each(CASES)('%s: report values', (_id, fx) => {
    const exp = EXPECTED[fx.dir]![fx.name]!;
    const report = parsePgbenchReport(fx.stdout);
    expectFields(report, exp.report, 'report');
    // Every line of every captured report is understood.
    expect(report.unparsed).toEqual([]);
    if (exp.scripts) {
      expect(report.scripts).toHaveLength(exp.scripts.length);
      exp.scripts.forEach((s, i) => expectFields(report.scripts[i], s, `scripts[${i}]`));
    } else {
      expect(report.scripts).toEqual([]);
    }
    if (exp.statements) {
      expect(report.statements).toHaveLength(exp.statements.count);
      for (const [i, row] of Object.entries(exp.statements.rows ?? {})) {
        expect(report.statements[Number(i)]).toEqual(row);
      }
    } else {
      expect(report.statements).toEqual([]);
    }
  });

  it.each(CASES)('%s: report agrees with the recorded command and versions', (_id, fx) => {
    const report = parsePgbenchReport(fx.stdout);
    const argv = fx.meta.command;
    const client = fx.meta.clientVersion.replace(/^pgbench \(PostgreSQL\) /, '');
    const server = fx.meta.serverVersion.replace(/^postgres \(PostgreSQL\) /, '');
    const major = Number(/^\d+/.exec(client)![0]);
    if (major >= 14 && fx.meta.exitCode !== 1) {
      // The banner shows the client's full version, and the server's only when it differs.
      expect(report.clientVersion).toBe(client);
      expect(report.clientMajor).toBe(major);
      expect(report.serverVersion).toBe(client === server ? undefined : server);
    } else {
      expect(report.clientVersion).toBeUndefined();
    }
    if (report.empty) return;
    expect(report.clients).toBe(Number(argOf(argv, '-c')));
    expect(report.threads).toBe(Number(argOf(argv, '-j')));
    const t = argOf(argv, '-T');
    expect(report.durationSeconds).toBe(t === undefined ? undefined : Number(t));
    const perClient = argOf(argv, '-t');
    expect(report.transactionsPerClient).toBe(perClient === undefined ? undefined : Number(perClient));
    const tries = argOf(argv, '--max-tries', '--max-tries');
    expect(report.maxTries).toBe(major < 15 ? undefined : Number(tries ?? 1));
  });

  it.each(CASES)('%s: judge', (_id, fx) => {
    const exp = EXPECTED[fx.dir]![fx.name]!;
    const result = judgePgbenchRun({
      exitCode: fx.meta.exitCode,
      stdout: fx.stdout,
      stderr: fx.stderr,
      expectedClients: Number(argOf(fx.meta.command, '-c')),
    });
    const judge = exp.judge ?? OK;
    if (judge.ok) {
      expect(result.ok).toBe(true);
    } else {
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.reason).toMatch(judge.reason);
        expect(result.reason).not.toContain('\n');
      }
    }
  });

  it.each(CASES)('%s: progress lines', (_id, fx) => {
    const exp = EXPECTED[fx.dir]![fx.name]!;
    const points = parsePgbenchProgress(fx.stderr);
    if (!exp.progress) {
      expect(points).toEqual([]);
      return;
    }
    expect(points).toHaveLength(exp.progress.count);
    expect(points[0]).toEqual(exp.progress.first);
    if (exp.progress.last) expectFields(points.at(-1), exp.progress.last, 'last progress point');
  });

  it.each(CASES.filter(([, fx]) => fx.log !== undefined))('%s: aggregate log', (_id, fx) => {
    const exp = EXPECTED[fx.dir]![fx.name]!;
    const rows = parsePgbenchAggregateLog(fx.log!);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toEqual(exp.aggregate);
    // Consecutive one-second intervals.
    rows.forEach((r, i) => expect(r.intervalStart).toBe(exp.aggregate!.intervalStart + i));
  });
});

describe('parsePgbenchReport edge cases', () => {
  it('returns an empty report for empty stdout', () => {
    expect(parsePgbenchReport('')).toEqual({ empty: true, scripts: [], statements: [], unparsed: [] });
  });

  it('reads the 14 wording and "(including failures)"', () => {
    const r = parsePgbenchReport(
      [
        'pgbench (14.2)',
        'transaction type: <builtin: TPC-B (sort of)>',
        'number of transactions actually processed: 100/100',
        'latency average = 3.500 ms (including failures)',
        'initial connection time = 2.000 ms',
        'tps = 1234.500000 (without initial connection time)',
      ].join('\n'),
    );
    expect(r).toMatchObject({
      clientVersion: '14.2',
      clientMajor: 14,
      processed: 100,
      plannedTransactions: 100,
      latencyAvgMs: 3.5,
      latencyIncludesFailures: true,
      initialConnectionTimeMs: 2,
      tps: 1234.5,
      tpsKind: 'without-initial-connection',
      unparsed: [],
    });
  });

  it('reads the 19 "other failures" line and keeps lines it does not know', () => {
    const r = parsePgbenchReport(
      [
        'transaction type: x.sql',
        'number of failed transactions: 9 (4.500%)',
        'number of serialization failures: 1 (0.500%)',
        'number of deadlock failures: 2 (1.000%)',
        'number of other failures: 6 (3.000%)',
        'something new: 42',
      ].join('\n'),
    );
    expect(r).toMatchObject({ failed: 9, serializationFailures: 1, deadlockFailures: 2, otherFailures: 6 });
    expect(r.unparsed).toEqual(['something new: 42']);
  });
});

describe('parsePgbenchProgress', () => {
  it('ignores other stderr lines and handles nan stddev', () => {
    const points = parsePgbenchProgress(
      [
        'pgbench: setting random seed to 42',
        'starting vacuum...end.',
        'progress: 5.0 s, 0.0 tps, lat 0.000 ms stddev -nan, 0 failed',
        'progress: 10.0 s, 12.5 tps, lat 1.000 ms stddev nan',
        'progress: garbage',
      ].join('\n'),
    );
    expect(points).toEqual([
      { t: 5, tps: 0, latencyAvgMs: 0, failed: 0 },
      { t: 10, tps: 12.5, latencyAvgMs: 1 },
    ]);
  });

  it('makes --progress-timestamp times relative to a given start', () => {
    const points = parsePgbenchProgress(
      'progress: 1795352409.015 s, 1.0 tps, lat 1.000 ms stddev 0.000, 0 failed\n',
      { startEpochSeconds: 1795352408 },
    );
    expect(points[0]).toMatchObject({ t: 1.015, epochSeconds: 1795352409.015 });
  });
});

describe('parsePgbenchAggregateLog', () => {
  it('reads the hand-written 19 (16-column) log derived from the documentation', () => {
    const rows = parsePgbenchAggregateLog(read('19devel-doc/agglog-failures.log'));
    expect(rows).toHaveLength(3);
    expect(rows[0]).toEqual({
      intervalStart: 1795400000,
      transactions: 1200,
      latencySumUs: 540000,
      latencySum2Us: 312000000,
      latencyMinUs: 120,
      latencyMaxUs: 2100,
      lagSumUs: 0,
      lagSum2Us: 0,
      lagMinUs: 0,
      lagMaxUs: 0,
      skipped: 0,
      retried: 35,
      retries: 41,
      serializationFailures: 3,
      deadlockFailures: 1,
      otherFailures: 7,
      columns: 16,
    });
  });

  it('reads the <= 14 ten-column form (-R without -L)', () => {
    expect(parsePgbenchAggregateLog('1700000000 10 100 2000 5 20 30 400 1 9\n')).toEqual([
      {
        intervalStart: 1700000000,
        transactions: 10,
        latencySumUs: 100,
        latencySum2Us: 2000,
        latencyMinUs: 5,
        latencyMaxUs: 20,
        lagSumUs: 30,
        lagSum2Us: 400,
        lagMinUs: 1,
        lagMaxUs: 9,
        columns: 10,
      },
    ]);
  });

  it('names the line of a malformed entry', () => {
    const good = '1795352368 16457 1126495 785326173 20 8634 0 0 0 0 0 0 0 0 0';
    expect(() => parsePgbenchAggregateLog(`${good}\n${good}\n1795352370 1 2 3\n`)).toThrow(
      /aggregate log line 3: expected 6, 10, 11, 15, 16 columns, got 4/,
    );
    expect(() => parsePgbenchAggregateLog(`${good}\n1795352370 1 2 3 x 5\n`)).toThrow(
      /aggregate log line 2, column 5: not an integer: "x"/,
    );
  });
});

describe('judgePgbenchRun', () => {
  const base = fixture('15-vs-15/select-only');

  it('accepts a clean run and returns its report', () => {
    const r = judgePgbenchRun({ exitCode: 0, stdout: base.stdout, stderr: base.stderr, expectedClients: 2 });
    expect(r).toMatchObject({ ok: true, report: { processed: 188029, tps: 62712.413875 } });
  });

  it('flags a report with fewer clients than asked for', () => {
    const r = judgePgbenchRun({ exitCode: 0, stdout: base.stdout, stderr: base.stderr, expectedClients: 4 });
    expect(r).toMatchObject({ ok: false, reason: 'lost clients: the report shows 2 clients, expected 4' });
  });

  it('flags abort lines even with exit code 0', () => {
    const stderr = 'pgbench: error: client 3 aborted in command 4 (SQL) of script 0; ERROR:  boom\n';
    const r = judgePgbenchRun({ exitCode: 0, stdout: base.stdout, stderr, expectedClients: 2 });
    expect(r).toMatchObject({
      ok: false,
      reason:
        'lost clients: 1 of 2 clients aborted; first: client 3 aborted in command 4 (SQL) of script 0; ERROR: boom',
    });
  });

  it('flags a signal, an unknown exit code and a missing tps line', () => {
    expect(
      judgePgbenchRun({ exitCode: null, signal: 'SIGKILL', stdout: '', stderr: '', expectedClients: 2 }),
    ).toEqual({ ok: false, reason: 'pgbench was terminated by signal SIGKILL' });
    expect(judgePgbenchRun({ exitCode: 3, stdout: '', stderr: '', expectedClients: 2 })).toEqual({
      ok: false,
      reason: 'pgbench exited with code 3',
    });
    const noTps = base.stdout.replace(/^tps = .*$/m, '');
    expect(judgePgbenchRun({ exitCode: 0, stdout: noTps, stderr: '', expectedClients: 2 })).toMatchObject({
      ok: false,
      reason: 'no tps line in the report',
    });
  });

  it('flags a -t run whose transactions are not all accounted for', () => {
    const stdout = fixture('15-vs-15/aborted').stdout;
    expect(judgePgbenchRun({ exitCode: 0, stdout, stderr: '', expectedClients: 4 })).toMatchObject({
      ok: false,
      reason: 'incomplete run: 8998 of 12000 planned transactions accounted for',
    });
  });
});
