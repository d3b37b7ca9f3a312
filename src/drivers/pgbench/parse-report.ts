/**
 * Parser for pgbench's final report (stdout), pgbench 13 to 19devel.
 *
 * The report is a sequence of `key: value` / `key = value` lines whose set depends on the version and the
 * options (see docs/reference/postgres-benchmarking.md §2.3, §2.6, §2.8). The parser is line based and
 * order tolerant: every recognised line fills one field, absent optional lines leave their field
 * undefined, and lines it does not recognise are kept in `unparsed` (the fixture tests require that to be
 * empty, so a format change shows up as a test failure rather than as a silently missing number).
 *
 * A stdout without a report (exit code 1: bad options or connection failure; 17+ `--exit-on-abort`) still
 * yields a report object, with `empty: true` and every number undefined, so callers need one code path.
 */

/** Which tps line the headline `tps` came from. */
export type TpsKind =
  /** PG14+: connection setup excluded (the normal headline). */
  | 'without-initial-connection'
  /** PG <= 13: "excluding connections establishing" (printed together with the 'including' line). */
  | 'excluding-connections'
  /** PG <= 13: "including connections establishing"; only the headline when no other tps line exists. */
  | 'including-connections'
  /** PG14+ with -C: a connection per transaction, so its cost is part of the rate. */
  | 'including-reconnection';

/** Failure, retry and skip counters, printed for the whole run and (with several scripts) per script. */
export interface PgbenchCounters {
  /** PG15+: failed transactions (serialization/deadlock after the last try; other errors in 19+). */
  failed?: number;
  /** NaN when no transaction completed (15-17 print "(NaN%)"). */
  failedPercent?: number;
  /** PG15+ with --failures-detailed. */
  serializationFailures?: number;
  deadlockFailures?: number;
  /** 19+ with --failures-detailed (errors other than serialization/deadlock, --continue-on-error). */
  otherFailures?: number;
  /** PG15+ when max tries != 1. */
  retried?: number;
  totalRetries?: number;
  /** -R with -L: transactions skipped because they were already late when scheduled. */
  skipped?: number;
  skippedPercent?: number;
}

export interface PgbenchReport extends PgbenchCounters {
  /** True when stdout holds no report (no "transaction type:" line), e.g. exit code 1. */
  empty: boolean;
  /** Client version from the PG14+ banner, e.g. "15.18 (Debian 15.18-0+deb12u1)" or "18.6". */
  clientVersion?: string;
  /** Major version parsed from clientVersion (14+ only: older pgbench prints no banner). */
  clientMajor?: number;
  /** Server version, printed in the banner only when it differs from the client's. */
  serverVersion?: string;
  /** "<builtin: select only>", a script file name, or "multiple scripts". */
  transactionType?: string;
  /** As printed; 1 for custom scripts unless -s was given, so not a dataset check (§2.8 item 7). */
  scalingFactor?: number;
  partitionMethod?: string;
  partitions?: number;
  queryMode?: string;
  clients?: number;
  threads?: number;
  /** PG15+; absent with --max-tries=0 (unlimited). */
  maxTries?: number;
  /** -T mode. */
  durationSeconds?: number;
  /** -t mode. */
  transactionsPerClient?: number;
  /** Successfully completed transactions ("actually processed"). */
  processed?: number;
  /** -t mode: the M of "N/M" (clients x transactions per client). */
  plannedTransactions?: number;
  /** -L: the limit in ms and how many processed transactions exceeded it ("late"). */
  latencyLimitMs?: number;
  late?: number;
  /** The denominator printed after the slash (processed transactions). */
  lateOutOf?: number;
  latePercent?: number;
  latencyAvgMs?: number;
  /** "latency average = X ms (including failures)": wall-clock based average that counts failed ones. */
  latencyIncludesFailures?: boolean;
  /** Only printed with -P, -R or -L (§2.8 item 2). */
  latencyStddevMs?: number;
  /** -R: schedule lag. */
  lagAvgMs?: number;
  lagMaxMs?: number;
  /** PG14+ without -C. */
  initialConnectionTimeMs?: number;
  /** PG14+ with -C. */
  averageConnectionTimeMs?: number;
  /** The headline tps: connections excluded when pgbench says so, else including reconnection (-C). */
  tps?: number;
  tpsKind?: TpsKind;
  /** PG <= 13: the "including connections establishing" figure printed beside the headline. */
  tpsIncludingConnections?: number;
  /** Per-script blocks, printed only when the run has more than one script. */
  scripts: PgbenchScriptStats[];
  /** -r rows of every script in order (script is 1-based; 1 when there is a single script). */
  statements: PgbenchStatement[];
  /** Non-empty lines the parser did not recognise. */
  unparsed: string[];
}

export interface PgbenchScriptStats extends PgbenchCounters {
  /** 1-based, as printed ("SQL script 1: ..."). */
  index: number;
  name: string;
  weight?: number;
  weightPercent?: number;
  /**
   * The "N transactions" figure. Its meaning changed: 18+ counts processed + failed + skipped;
   * 15-17 count processed transactions; <= 14 count processed + skipped.
   */
  transactions?: number;
  transactionsPercent?: number;
  /** Processed (successful) transactions of this script, normalised across the formats above. */
  processed?: number;
  tps?: number;
  latencyAvgMs?: number;
  latencyStddevMs?: number;
}

export interface PgbenchStatement {
  /** 1-based script number. */
  script: number;
  /** Average latency of the command in ms. */
  latencyMs: number;
  /** PG15+: failures of this command. */
  failures?: number;
  /** PG15+ with max tries != 1: retries caused by this command. */
  retries?: number;
  /** First line of the command, as printed (SQL or meta command). */
  command: string;
}

// A count with a percentage: "33 (11.913%)" (15+) or "155 (14.748 %)" (<= 14); NaN when nothing ran.
const NUM = String.raw`(-?\d+(?:\.\d+)?)`;
const PCT = String.raw`\((-?\d+(?:\.\d+)?|-?nan|-?inf) ?%\)`;
const COUNT_PCT = new RegExp(String.raw`^(\d+) ${PCT}$`, 'i');

function num(s: string): number {
  return Number(s);
}

/** Parses "12 (3.456%)" / "12 (3.456 %)" / "0 (NaN%)". */
function countPct(value: string): { count: number; percent: number } | undefined {
  const m = COUNT_PCT.exec(value.trim());
  if (!m) return undefined;
  return { count: num(m[1]!), percent: pctValue(m[2]!) };
}

function pctValue(s: string): number {
  return /nan|inf/i.test(s) ? NaN : num(s);
}

/** The failure/retry/skip lines shared by the report and the per-script blocks (15+ wording). */
type CounterTarget = Pick<
  PgbenchReport,
  | 'failed'
  | 'failedPercent'
  | 'serializationFailures'
  | 'deadlockFailures'
  | 'otherFailures'
  | 'retried'
  | 'totalRetries'
  | 'skipped'
  | 'skippedPercent'
>;

/** Handles one "number of ...: N (x%)" / "total number of retries: N" line; false if not one of them. */
function parseCounterLine(key: string, value: string, target: CounterTarget): boolean {
  if (key === 'total number of retries') {
    target.totalRetries = num(value);
    return true;
  }
  const cp = countPct(value);
  if (!cp) return false;
  switch (key) {
    case 'number of failed transactions':
      target.failed = cp.count;
      target.failedPercent = cp.percent;
      return true;
    case 'number of serialization failures':
      target.serializationFailures = cp.count;
      return true;
    case 'number of deadlock failures':
      target.deadlockFailures = cp.count;
      return true;
    case 'number of other failures':
      target.otherFailures = cp.count;
      return true;
    case 'number of transactions retried':
      target.retried = cp.count;
      return true;
    case 'number of transactions skipped':
      target.skipped = cp.count;
      target.skippedPercent = cp.percent;
      return true;
    default:
      return false;
  }
}

const LATENCY_RE = new RegExp(String.raw`^latency (average|stddev) = ${NUM} ms( \(including failures\))?$`);
const TPS_RE = new RegExp(
  String.raw`^tps = ${NUM} \((without initial connection time|excluding connections establishing|including connections establishing|including reconnection times)\)$`,
);
const LATE_RE = new RegExp(
  String.raw`^number of transactions above the ${NUM} ms latency limit: (\d+)/(\d+) ${PCT}$`,
  'i',
);
const LAG_RE = new RegExp(String.raw`^rate limit schedule lag: avg ${NUM} \(max ${NUM}\) ms$`);
const PROCESSED_RE = /^(\d+)(?:\/(\d+))?$/;
// Statement header: "statement latencies in milliseconds:" (<= 14), "... and failures:" (15+, one try),
// "..., failures and retries:" (15+, max tries != 1); " - " prefixed inside per-script blocks.
const STMT_HEADER_RE =
  /^(?: - )?statement latencies in milliseconds( and failures|, failures and retries)?:$/;
const SCRIPT_HEADER_RE = /^SQL script (\d+): (.*)$/;
// Script block lines all start with " - ".
const WEIGHT_RE = new RegExp(String.raw`^weight: (\d+) \(targets ${NUM}% of total\)$`);
// 15-17 (and <= 14): "N transactions (x% of total, tps = Y)"; 18+: "N transactions (x% of total)".
const SCRIPT_XACTS_RE = new RegExp(String.raw`^(\d+) transactions \(${NUM}% of total(?:, tps = ${NUM})?\)$`);
// 18+: "number of transactions actually processed: N (tps = Y)".
const SCRIPT_PROCESSED_RE = new RegExp(
  String.raw`^number of transactions actually processed: (\d+) \(tps = ${NUM}\)$`,
);

const TPS_KINDS: Record<string, TpsKind> = {
  'without initial connection time': 'without-initial-connection',
  'excluding connections establishing': 'excluding-connections',
  'including connections establishing': 'including-connections',
  'including reconnection times': 'including-reconnection',
};

/** Parses the banner body "15.18 (Debian ...)" or "18.6, server 15.18 (Debian ...)". */
function parseBanner(body: string, report: PgbenchReport): void {
  const i = body.indexOf(', server ');
  const client = i >= 0 ? body.slice(0, i) : body;
  report.clientVersion = client;
  if (i >= 0) report.serverVersion = body.slice(i + ', server '.length);
  const major = /^(\d+)/.exec(client);
  if (major) report.clientMajor = num(major[1]!);
}

export function parsePgbenchReport(stdout: string): PgbenchReport {
  const report: PgbenchReport = { empty: true, scripts: [], statements: [], unparsed: [] };
  // Where statement rows go, and how many integer columns precede the command text.
  let stmt: { script: number; intColumns: number } | undefined;
  let script: PgbenchScriptStats | undefined;

  for (const raw of stdout.split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (line.trim() === '') continue;

    if (stmt && /^\s{3}/.test(line)) {
      const row = parseStatementRow(line, stmt.script, stmt.intColumns);
      if (row) {
        report.statements.push(row);
        continue;
      }
    }
    stmt = undefined;

    const header = STMT_HEADER_RE.exec(line);
    if (header) {
      const intColumns = header[1] === undefined ? 0 : header[1] === ' and failures' ? 1 : 2;
      stmt = { script: script?.index ?? 1, intColumns };
      continue;
    }

    const banner = /^pgbench \((.*)\)$/.exec(line);
    if (banner) {
      parseBanner(banner[1]!, report);
      continue;
    }

    const scriptHeader = SCRIPT_HEADER_RE.exec(line);
    if (scriptHeader) {
      script = { index: num(scriptHeader[1]!), name: scriptHeader[2]! };
      report.scripts.push(script);
      continue;
    }

    if (script && line.startsWith(' - ')) {
      if (parseScriptLine(line.slice(3), script)) continue;
      report.unparsed.push(line);
      continue;
    }

    if (!parseTopLine(line, report)) report.unparsed.push(line);
  }

  for (const s of report.scripts) {
    // <= 14 blocks have no failure line and count skipped transactions in "N transactions".
    if (s.processed === undefined && s.transactions !== undefined) {
      s.processed = s.failed === undefined ? s.transactions - (s.skipped ?? 0) : s.transactions;
    }
  }
  return report;
}

function parseStatementRow(line: string, script: number, intColumns: number): PgbenchStatement | undefined {
  // "   %11.3f  %s" (<= 14), "   %11.3f  %10d %s" (15+), "   %11.3f  %10d %10d %s" (15+, retries).
  const ints = String.raw`\s+(\d+)`.repeat(intColumns);
  const m = new RegExp(String.raw`^\s+(-?\d+\.\d+)${ints}\s(.*)$`).exec(line);
  if (!m) return undefined;
  const row: PgbenchStatement = { script, latencyMs: num(m[1]!), command: m[intColumns + 2]!.trim() };
  if (intColumns >= 1) row.failures = num(m[2]!);
  if (intColumns >= 2) row.retries = num(m[3]!);
  return row;
}

function parseScriptLine(line: string, s: PgbenchScriptStats): boolean {
  let m = WEIGHT_RE.exec(line);
  if (m) {
    s.weight = num(m[1]!);
    s.weightPercent = num(m[2]!);
    return true;
  }
  m = SCRIPT_XACTS_RE.exec(line);
  if (m) {
    s.transactions = num(m[1]!);
    s.transactionsPercent = num(m[2]!);
    if (m[3] !== undefined) s.tps = num(m[3]);
    return true;
  }
  m = SCRIPT_PROCESSED_RE.exec(line);
  if (m) {
    s.processed = num(m[1]!);
    s.tps = num(m[2]!);
    return true;
  }
  m = LATENCY_RE.exec(line);
  if (m) {
    if (m[1] === 'average') s.latencyAvgMs = num(m[2]!);
    else s.latencyStddevMs = num(m[2]!);
    return true;
  }
  const colon = line.indexOf(': ');
  if (colon < 0) return false;
  return parseCounterLine(line.slice(0, colon), line.slice(colon + 2), s);
}

function parseTopLine(line: string, report: PgbenchReport): boolean {
  let m = TPS_RE.exec(line);
  if (m) {
    const kind = TPS_KINDS[m[2]!]!;
    const value = num(m[1]!);
    if (kind === 'including-connections') {
      // PG <= 13 prints this line first and the "excluding" headline after it.
      report.tpsIncludingConnections = value;
      if (report.tps === undefined) {
        report.tps = value;
        report.tpsKind = kind;
      }
    } else {
      report.tps = value;
      report.tpsKind = kind;
    }
    return true;
  }
  m = LATENCY_RE.exec(line);
  if (m) {
    if (m[1] === 'average') {
      report.latencyAvgMs = num(m[2]!);
      report.latencyIncludesFailures = m[3] !== undefined;
    } else {
      report.latencyStddevMs = num(m[2]!);
    }
    return true;
  }
  m = LATE_RE.exec(line);
  if (m) {
    report.latencyLimitMs = num(m[1]!);
    report.late = num(m[2]!);
    report.lateOutOf = num(m[3]!);
    report.latePercent = pctValue(m[4]!);
    return true;
  }
  m = LAG_RE.exec(line);
  if (m) {
    report.lagAvgMs = num(m[1]!);
    report.lagMaxMs = num(m[2]!);
    return true;
  }
  m = /^(initial|average) connection time = (-?\d+(?:\.\d+)?) ms$/.exec(line);
  if (m) {
    if (m[1] === 'initial') report.initialConnectionTimeMs = num(m[2]!);
    else report.averageConnectionTimeMs = num(m[2]!);
    return true;
  }

  const colon = line.indexOf(': ');
  if (colon < 0) return false;
  const key = line.slice(0, colon);
  const value = line.slice(colon + 2).trim();
  switch (key) {
    case 'transaction type':
      report.transactionType = value;
      report.empty = false;
      return true;
    case 'scaling factor':
      report.scalingFactor = num(value);
      return true;
    case 'partition method':
      report.partitionMethod = value;
      return true;
    case 'partitions':
      report.partitions = num(value);
      return true;
    case 'query mode':
      report.queryMode = value;
      return true;
    case 'number of clients':
      report.clients = num(value);
      return true;
    case 'number of threads':
      report.threads = num(value);
      return true;
    case 'maximum number of tries':
      report.maxTries = num(value);
      return true;
    case 'duration': {
      const d = /^(\d+) s$/.exec(value);
      if (!d) return false;
      report.durationSeconds = num(d[1]!);
      return true;
    }
    case 'number of transactions per client':
      report.transactionsPerClient = num(value);
      return true;
    case 'number of transactions actually processed': {
      const p = PROCESSED_RE.exec(value);
      if (!p) return false;
      report.processed = num(p[1]!);
      if (p[2] !== undefined) report.plannedTransactions = num(p[2]);
      return true;
    }
    default:
      return parseCounterLine(key, value, report);
  }
}
