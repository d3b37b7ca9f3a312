/**
 * The triage digest, free of any API: what regressed on master and is not yet triaged, as one issue the
 * maintainers read (rustc-perf's weekly triage, Firefox's alert sheriffing). Its entries are the open
 * regression issues of the nightly (regression-event.ts); one is acknowledged by the label TRIAGED_LABEL on
 * its issue (a maintainer's act: labels need triage permission on GitHub), and drops from the untriaged list.
 * An entry untriaged longer than the configured days is raised again: once per period, a comment on its
 * issue (flows/nightly/digest-issue.ts posts it). Pure: issues and now in, the digest out.
 */
import { escapeMarkdown, markdownLink, safeUrl } from '../markdown-escape.js';
import { jsonMarker, markerText, parseBisectMarker } from '../../history/bisect-marker.js';
import { parseEventState, type IssueLinks } from './regression-event.js';

/** The label that acknowledges a regression issue. */
export const TRIAGED_LABEL = 'pgperf-triaged';
/** Days a regression may stay untriaged before it is raised again (Firefox gives authors 3 business days). */
export const DEFAULT_RAISE_AFTER_DAYS = 3;

const DIGEST_MARKER = 'digest';
const DAY_MS = 86_400_000;

/** A regression issue as the digest reads it. */
export interface DigestIssue {
  number: number;
  title: string;
  body: string;
  labels: readonly string[];
  /** When it was opened (ISO 8601); absent: its age is unknown and it is never raised. */
  createdAt?: string;
}

export interface DigestEntry {
  issue: number;
  title: string;
  /** The workload id of its event ("fingerprint/workload"). */
  event: string;
  ageDays: number | null;
  /**
   * The change point's last good and first bad commits (the issue's bisect marker): the commits to look at,
   * whoever wrote them. Absent when the issue has no readable marker.
   */
  suspects?: { good: string; bad: string };
}

export interface Digest {
  untriaged: DigestEntry[];
  triaged: DigestEntry[];
  /** Untriaged entries due to be raised again now (older than raiseAfterDays, not raised this period). */
  raise: DigestEntry[];
  /** What the digest issue's marker records: when each entry was last raised. */
  raised: Record<string, string>;
}

/** The digest of the open regression issues: untriaged first (oldest first), the triaged after. */
export function digestOf(
  issues: readonly DigestIssue[],
  now: Date,
  options: { raiseAfterDays?: number; raised?: Record<string, string> } = {},
): Digest {
  const raiseAfterMs = (options.raiseAfterDays ?? DEFAULT_RAISE_AFTER_DAYS) * DAY_MS;
  const entries = issues
    .map((i) => ({ issue: i, state: parseEventState(i.body) }))
    .filter(({ state }) => state?.state === 'open')
    .map(({ issue, state }) => ({
      entry: {
        issue: issue.number,
        title: issue.title,
        event: state!.event,
        ageDays: issue.createdAt ? Math.floor((now.getTime() - Date.parse(issue.createdAt)) / DAY_MS) : null,
        ...suspectsOf(issue.body),
      },
      triaged: issue.labels.includes(TRIAGED_LABEL),
      createdMs: issue.createdAt ? Date.parse(issue.createdAt) : undefined,
    }))
    .sort((a, b) => (a.createdMs ?? Infinity) - (b.createdMs ?? Infinity) || a.entry.issue - b.entry.issue);
  const untriaged = entries.filter((e) => !e.triaged);
  const raised = { ...(options.raised ?? {}) };
  const raise = untriaged.filter(({ entry, createdMs }) => {
    if (createdMs === undefined || now.getTime() - createdMs < raiseAfterMs) return false;
    const last = raised[String(entry.issue)];
    return last === undefined || now.getTime() - Date.parse(last) >= raiseAfterMs;
  });
  for (const { entry } of raise) raised[String(entry.issue)] = now.toISOString();
  // Entries no longer open or now triaged are forgotten, so a new regression starts afresh.
  for (const key of Object.keys(raised)) {
    if (!untriaged.some((e) => String(e.entry.issue) === key)) delete raised[key];
  }
  return {
    untriaged: untriaged.map((e) => e.entry),
    triaged: entries.filter((e) => e.triaged).map((e) => e.entry),
    raise: raise.map((e) => e.entry),
    raised,
  };
}

/** The suspects of an issue (its bisect marker's good and bad commits); none when it has no readable marker. */
function suspectsOf(body: string): Pick<DigestEntry, 'suspects'> {
  try {
    const { good, bad } = parseBisectMarker(body, 'the issue');
    return { suspects: { good, bad } };
  } catch {
    return {};
  }
}

/** What the digest issue's marker records, read back; {} for any other body. */
export function parseDigestRaised(body: string): Record<string, string> {
  const text = markerText(body, DIGEST_MARKER);
  if (text === undefined) return {};
  try {
    const parsed = JSON.parse(text) as { raised?: unknown };
    const raised = parsed.raised;
    if (typeof raised !== 'object' || raised === null) return {};
    return Object.fromEntries(
      Object.entries(raised).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
  } catch {
    return {};
  }
}

/** Whether a body is a digest issue's. */
export function isDigestBody(body: string): boolean {
  return markerText(body, DIGEST_MARKER) !== undefined;
}

export const DIGEST_TITLE = 'pgperf: triage digest of nightly regressions';

/** The digest issue's body: the marker, the untriaged (oldest first), the acknowledged, how to triage. */
export function digestBody(digest: Digest, now: Date, links: IssueLinks = {}): string {
  const line = (e: DigestEntry) =>
    `- #${e.issue} ${escapeMarkdown(e.title)}${e.ageDays !== null ? ` (open ${e.ageDays} day${e.ageDays === 1 ? '' : 's'})` : ''}` +
    (e.suspects ? `: ${suspectsText(e.suspects, links.repoUrl)}` : '');
  const foundBy = safeUrl(links.runUrl ?? '');
  return [
    jsonMarker(DIGEST_MARKER, { raised: digest.raised }),
    `**${digest.untriaged.length} untriaged regression${digest.untriaged.length === 1 ? '' : 's'}** on the nightly history (${now.toISOString().slice(0, 10)}).`,
    '',
    ...(digest.untriaged.length > 0 ? [...digest.untriaged.map(line), ''] : ['Nothing to triage.', '']),
    ...(digest.triaged.length > 0
      ? ['Acknowledged (still open until they recover):', ...digest.triaged.map(line), '']
      : []),
    ...(foundBy ? [`Updated by ${markdownLink('this run', foundBy)}.`, ''] : []),
    `To triage one, read its issue (the change point's commits and the bisection), then add the label ` +
      `\`${TRIAGED_LABEL}\` to it: it leaves this list. One left untriaged is raised again on its issue ` +
      'every few days.',
  ].join('\n');
}

/**
 * "the commits after 0123456789ab up to fedcba987654" (linked to the repository's compare view when its URL
 * is known): where an owner is found, without naming one the change point cannot tell apart.
 */
function suspectsText(s: { good: string; bad: string }, repoUrl: string | undefined): string {
  const text = `the commits after ${s.good.slice(0, 12)} up to ${s.bad.slice(0, 12)}`;
  return markdownLink(text, repoUrl && `${repoUrl.replace(/\/$/, '')}/compare/${s.good}...${s.bad}`);
}

/** The comment that raises an untriaged regression again on its own issue. */
export function raiseNote(entry: DigestEntry): string {
  return (
    `This regression has been open and untriaged for ${entry.ageDays ?? 'several'} days. ` +
    (entry.suspects
      ? `Its change point lies in the commits after ${entry.suspects.good.slice(0, 12)} up to ${entry.suspects.bad.slice(0, 12)}. `
      : '') +
    `Please look at it (or bisect it with the label \`pgperf-bisect\`) and add the label \`${TRIAGED_LABEL}\` ` +
    'once someone owns it.'
  );
}
