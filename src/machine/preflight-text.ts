/**
 * The preflight report as terminal text: the verdict first, then the facts grouped, each non-ok fact
 * with why it matters and the command that fixes it. Pure; the doctor command prints it.
 */
import type { Fact, FactGroup, PreflightReport } from './preflight.js';

const GROUP_TITLES: Record<FactGroup, string> = {
  cpu: 'CPU',
  frequency: 'Frequency',
  idle: 'Idle states',
  memory: 'Memory',
  kernel: 'Kernel',
  virtualisation: 'Virtualisation',
  load: 'Load',
  limits: 'Limits',
  tools: 'Tools',
  disk: 'Disk',
  users: 'Users',
};

const MARK = { ok: 'ok  ', warn: 'WARN', bad: 'BAD ' } as const;

export function renderPreflight(report: PreflightReport): string {
  const bad = report.facts.filter((f) => f.verdict === 'bad').length;
  const warn = report.facts.filter((f) => f.verdict === 'warn').length;
  const counts = [bad ? `${bad} bad` : '', warn ? `${warn} warning${warn === 1 ? '' : 's'}` : '']
    .filter(Boolean)
    .join(', ');
  const lines = [`verdict: ${report.verdict}${counts ? ` (${counts})` : ''}`];
  const groups = new Map<FactGroup, Fact[]>();
  for (const f of report.facts) groups.set(f.group, [...(groups.get(f.group) ?? []), f]);
  for (const [group, facts] of groups) {
    lines.push('', GROUP_TITLES[group]);
    for (const f of facts) {
      lines.push(`  ${MARK[f.verdict]}  ${f.name}: ${f.value}`);
      if (f.why) lines.push(`          why: ${f.why}`);
      if (f.fix) lines.push(`          fix: ${f.fix}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
