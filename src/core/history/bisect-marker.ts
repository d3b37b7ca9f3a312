/**
 * The hidden JSON markers of a regression issue (`<!-- pgperf:NAME {json} -->`), and the one mode bisect
 * reads: `<!-- pgperf:bisect {json} -->`, written by flows/nightly/regression-issues.ts beside the series
 * markers, so the Action's `mode: bisect` reads the series (the worst cell of the regression event) and the
 * change point's commits back without parsing prose.
 */
import { isMetricName, type MetricName } from '../results/metrics.js';
import { UserError } from '../util/errors.js';
import { CLIENTS, rangeText } from '../bounds.js';

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

const SUFFIX = ' -->';
const prefixOf = (name: string) => `<!-- pgperf:${name} `;

/**
 * `<!-- pgperf:NAME {json} -->`; `<` and `>` are escaped in the JSON so no value can end the comment early.
 *
 * @example jsonMarker('bisect', { a: '-->' }) === '<!-- pgperf:bisect {"a":"--\\u003e"} -->'
 */
export function jsonMarker(name: string, value: unknown): string {
  const json = JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
  return `${prefixOf(name)}${json}${SUFFIX}`;
}

/** The text of the first `<!-- pgperf:NAME ... -->` marker in `body` (the JSON, unparsed); undefined when none. */
export function markerText(body: string, name: string): string | undefined {
  const prefix = prefixOf(name);
  const start = body.indexOf(prefix);
  const end = start < 0 ? -1 : body.indexOf(SUFFIX, start + prefix.length);
  return start < 0 || end < 0 ? undefined : body.slice(start + prefix.length, end);
}

/** The bisect marker of a target. */
export function bisectMarker(target: BisectTarget): string {
  return jsonMarker('bisect', target);
}

/**
 * The target in an issue body, or a UserError naming `where` (e.g. "issue #12") and what is wrong: no
 * marker, not JSON, or a field missing or of the wrong kind.
 */
export function parseBisectMarker(body: string, where: string): BisectTarget {
  const text = markerText(body, 'bisect');
  if (text === undefined) {
    throw new UserError(
      `${where} has no '${prefixOf('bisect').trim()} ...' marker: only regression issues opened by pgperf's nightly mode (after this version) can be bisected; run mode bisect from workflow_dispatch with 'base-ref' (good), 'head-ref' (bad), 'workloads' and 'clients' instead`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UserError(`${where}: the pgperf:bisect marker is not JSON (was the issue body edited?)`);
  }
  const o = (parsed ?? {}) as Record<string, unknown>;
  const bad = (field: string, expected: string) =>
    new UserError(
      `${where}: the pgperf:bisect marker's '${field}' must be ${expected}, got ${JSON.stringify(o[field])}`,
    );
  const nonEmpty = (field: string) => {
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
  // An issue body can be edited: its client count is held to the bound of every other one.
  if ((o.clients as number) > CLIENTS.max) throw bad('clients', `a whole number ${rangeText(CLIENTS)}`);
  const metric = nonEmpty('metric');
  if (!isMetricName(metric)) throw bad('metric', 'a metric pgperf records (e.g. tps)');
  return {
    series: nonEmpty('series'),
    workload: nonEmpty('workload'),
    clients: o.clients as number,
    metric,
    fingerprint: nonEmpty('fingerprint'),
    good: sha('good'),
    bad: sha('bad'),
  };
}
