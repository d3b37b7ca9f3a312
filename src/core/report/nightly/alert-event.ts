/**
 * The alert issue of a machine, free of any API: one issue per fingerprint listing what keeps its nightly
 * history from being trusted as quiet (missing nights, vanished cells: night-watch.ts), with a hidden marker
 * naming the machine. flows/nightly/alert-issues.ts opens, updates and closes it.
 */
import { escapeMarkdown, issueTitleText, markdownLink, safeUrl } from '../markdown-escape.js';
import { jsonMarker, markerText } from '../../history/bisect-marker.js';
import type { NightAlert } from '../../history/night-watch.js';
import type { IssueLinks } from './regression-event.js';

const ALERT_MARKER = 'alerts';

/** The machine an alert issue is about, from its body's marker; undefined for any other body. */
export function alertMachine(body: string): string | undefined {
  const text = markerText(body, ALERT_MARKER);
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as { machine?: unknown };
    return typeof parsed.machine === 'string' ? parsed.machine : undefined;
  } catch {
    return undefined;
  }
}

export function alertTitle(machine: string): string {
  return issueTitleText(`pgperf: nightly history alerts on ${machine}`);
}

/** The body: the marker, then each alert, then what to do. */
export function alertBody(machine: string, alerts: readonly NightAlert[], links: IssueLinks): string {
  const foundBy = safeUrl(links.runUrl ?? '');
  return [
    jsonMarker(ALERT_MARKER, { machine }),
    `The nightly history of the machine ${escapeMarkdown(machine)} cannot be read as quiet:`,
    '',
    ...alerts.map((a) => `- ${escapeMarkdown(a.message)}`),
    '',
    ...(foundBy ? [`Found by ${markdownLink('this run', foundBy)}.`, ''] : []),
    'A night that did not run leaves no point to find a regression in; a cell no run measures any more ' +
      'leaves its series silent. Run the missing nights (or say why they stopped), or drop the cell on ' +
      'purpose. pgperf closes this issue when the next night has nothing to report.',
  ].join('\n');
}

/** The comment that closes an alert issue. */
export function alertsClearedNote(machine: string, links: IssueLinks): string {
  const foundBy = safeUrl(links.runUrl ?? '');
  return `The nightly history of ${escapeMarkdown(machine)} has nothing to report any more${foundBy ? ` (${markdownLink('this run', foundBy)})` : ''}: closed.`;
}
