/**
 * What a regression issue asks a bisection to search, as a second hidden marker in its body
 * (`<!-- pgperf:bisect {json} -->`, written by github/regression-issues.ts beside the series marker), so the
 * Action's `mode: bisect` reads the series and the change point's commits back without parsing prose.
 */
import { isMetricName, type MetricName } from '../results/metrics.js';
import { UserError } from '../util/errors.js';

export interface BisectTarget {
  /** The series id (the series marker's). */
  series: string;
  workload: string;
  clients: number;
  metric: MetricName;
  /** The machine fingerprint the series was measured on. */
  fingerprint: string;
  /** The change point's last good and first bad commits. */
  good: string;
  bad: string;
}

const PREFIX = '<!-- pgperf:bisect ';
const SUFFIX = ' -->';

/** The marker; `<` and `>` are escaped in the JSON so no value can end the comment early. */
export function bisectMarker(target: BisectTarget): string {
  const json = JSON.stringify(target).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
  return `${PREFIX}${json}${SUFFIX}`;
}

/**
 * The target in an issue body, or a UserError naming `where` (e.g. "issue #12") and what is wrong: no
 * marker, not JSON, or a field missing or of the wrong kind.
 */
export function parseBisectMarker(body: string, where: string): BisectTarget {
  const start = body.indexOf(PREFIX);
  const end = start < 0 ? -1 : body.indexOf(SUFFIX, start + PREFIX.length);
  if (start < 0 || end < 0) {
    throw new UserError(
      `${where} has no '${PREFIX.trim()} ...' marker: only regression issues opened by pgperf's nightly mode (after this version) can be bisected; run mode bisect from workflow_dispatch with 'base-ref' (good), 'head-ref' (bad), 'workloads' and 'clients' instead`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.slice(start + PREFIX.length, end));
  } catch {
    throw new UserError(`${where}: the pgperf:bisect marker is not JSON (was the issue body edited?)`);
  }
  const o = (parsed ?? {}) as Record<string, unknown>;
  const bad = (field: string, expected: string) =>
    new UserError(
      `${where}: the pgperf:bisect marker's '${field}' must be ${expected}, got ${JSON.stringify(o[field])}`,
    );
  const text = (field: string) => {
    if (typeof o[field] !== 'string' || o[field] === '') throw bad(field, 'a non-empty string');
    return o[field];
  };
  const sha = (field: string) => {
    const v = o[field];
    if (typeof v !== 'string' || !/^[0-9a-f]{7,40}$/i.test(v)) throw bad(field, 'a commit sha');
    return v;
  };
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UserError(`${where}: the pgperf:bisect marker must be a JSON object`);
  }
  if (!Number.isInteger(o.clients) || (o.clients as number) < 1) throw bad('clients', 'a whole number >= 1');
  const metric = text('metric');
  if (!isMetricName(metric)) throw bad('metric', 'a metric pgperf records (e.g. tps)');
  return {
    series: text('series'),
    workload: text('workload'),
    clients: o.clients as number,
    metric,
    fingerprint: text('fingerprint'),
    good: sha('good'),
    bad: sha('bad'),
  };
}
