/**
 * What ran, for the report's details: the machine and its environment facts, each arm's build, and the
 * settings (per-arm overrides and the workloads' specs).
 */
import type { ClientInfo, Environment } from '../../results/result-types.js';
import { omitted, type ReportContext } from './markdown-context.js';
import { escapeMarkdown } from '../markdown-escape.js';
import type { TrimId } from './markdown-size.js';
import { clientText } from '../evidence/client-line.js';

function keyValueTable(header: [string, string], rows: Array<[string, string]>): string[] {
  return [`| ${header[0]} | ${header[1]} |`, '|:---|:---|', ...rows.map(([k, v]) => `| ${k} | ${v} |`)];
}

export function environment(ctx: ReportContext, trims: ReadonlySet<TrimId>): string[] {
  const { result } = ctx;
  const env: Environment | undefined = result.environment;
  const rows: Array<[string, string]> = [];
  if (env) {
    rows.push(
      ['CPU', `${escapeMarkdown(env.cpuModel)} (${env.cpuCount} logical CPUs, ${escapeMarkdown(env.arch)})`],
      ['memory', `${(env.memoryBytes / 2 ** 30).toFixed(1)} GiB`],
      ['OS', escapeMarkdown(env.os)],
      ['kernel', escapeMarkdown(env.kernel)],
      ['host', escapeMarkdown(env.hostname)],
      ['Node.js', escapeMarkdown(env.nodeVersion)],
      ['settings hash', escapeMarkdown(env.settingsHash)],
    );
    if (env.controls?.length) {
      // One phrase per control and value, however many CPUs had their governor set.
      const held = [...new Set(env.controls.map((c) => `${c.control} ${c.to}`))].join('; ');
      rows.push(['controls (restored after)', escapeMarkdown(held, 300)]);
    }
  }
  rows.push(
    ['pgperf', escapeMarkdown(result.pgperfVersion ?? '?')],
    [
      'run',
      `${escapeMarkdown(result.startedAt ?? '?')} to ${escapeMarkdown(result.updatedAt ?? '?')}, ${escapeMarkdown(result.status)}`,
    ],
  );
  const lines = keyValueTable(['machine', 'value'], rows);
  const facts = Object.entries(env?.facts ?? {});
  if (facts.length > 0) {
    lines.push('');
    if (trims.has('facts')) lines.push(omitted(ctx, `${facts.length} environment facts`));
    else
      lines.push(
        ...keyValueTable(
          ['fact', 'value'],
          facts.map(([k, v]) => [escapeMarkdown(k), escapeMarkdown(String(v), 300)]),
        ),
      );
  }
  if (!env) lines.push('', '_The results record no environment._');
  return lines;
}

/** Keys of a build record shown first, in this order; the rest follow as recorded. */
const BUILD_KEYS = ['sha', 'ref', 'compiler', 'options', 'buildOptions', 'cacheHit'];

export function builds(ctx: ReportContext): string[] {
  const rows = ctx.result.arms.map((arm) => {
    const build = arm.build
      ? Object.entries(arm.build)
          .sort(([a], [b]) => buildKeyRank(a) - buildKeyRank(b))
          .map(([k, v]) => `${escapeMarkdown(k)}: ${escapeMarkdown(recordValue(v), 300)}`)
          .join('; ')
      : 'not built by pgperf';
    return `| ${escapeMarkdown(arm.label)} | ${escapeMarkdown(arm.binDir ?? '?')} | ${escapeMarkdown(arm.serverVersion ?? '?')} | ${build} |`;
  });
  const lines = ['| arm | bin dir | server version | build |', '|:---|:---|:---|:---|', ...rows];
  const clients: ClientInfo[] = ctx.result.clients ?? [];
  for (const client of clients) {
    lines.push('', `Client: ${escapeMarkdown(clientText(client))} drove every arm.`);
  }
  return lines;
}

function buildKeyRank(key: string): number {
  const i = BUILD_KEYS.indexOf(key);
  return i === -1 ? BUILD_KEYS.length : i;
}

/** A recorded value as short text: strings as they are, arrays joined, objects as "key=value" pairs. */
function recordValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(recordValue).join(' ');
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value)
      .map(([k, v]) => `${k}=${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`)
      .join(', ');
  }
  return String(value);
}

export function settings(ctx: ReportContext): string[] {
  const { result } = ctx;
  const overrides = result.arms.flatMap((arm) =>
    Object.entries(arm.settingOverrides ?? {}).map(
      ([name, value]) =>
        `| ${escapeMarkdown(arm.label)} | ${escapeMarkdown(name)} | ${escapeMarkdown(String(value), 200)} |`,
    ),
  );
  const lines =
    overrides.length === 0
      ? ['No per-arm overrides: every arm ran with the same postgresql.conf.']
      : ['Per-arm overrides:', '', '| arm | setting | value |', '|:---|:---|:---|', ...overrides];
  const workloads = Object.entries(result.workloads ?? {});
  if (workloads.length > 0) {
    lines.push(
      '',
      '| workload | script | query mode | scale | duration (s) | threshold | settings |',
      '|:---|:---|:---|---:|---:|---:|:---|',
      ...workloads.map(([name, spec]) => workloadRow(name, spec)),
    );
  }
  return lines;
}

function workloadRow(name: string, spec: unknown): string {
  const w = typeof spec === 'object' && spec !== null ? (spec as Record<string, unknown>) : {};
  const text = (v: unknown) => (v === undefined || v === null ? '–' : escapeMarkdown(recordValue(v), 200));
  let script = text(w.builtin ?? w.script);
  if (Array.isArray(w.scripts)) {
    script = w.scripts
      .map((s) => {
        const entry = typeof s === 'object' && s !== null ? (s as Record<string, unknown>) : {};
        const file = typeof entry.file === 'string' ? (entry.file.split('/').pop() ?? entry.file) : '?';
        return escapeMarkdown(entry.weight === undefined ? file : `${file}@${String(entry.weight)}`, 120);
      })
      .join(', ');
  }
  if (typeof w.pipeline === 'number') script += ` (pipeline ${w.pipeline})`;
  const conf =
    typeof w.settings === 'object' && w.settings !== null
      ? Object.entries(w.settings)
          .map(([k, v]) => `${escapeMarkdown(k)} = ${escapeMarkdown(String(v), 100)}`)
          .join('; ')
      : '';
  const threshold = typeof w.threshold === 'number' ? `${w.threshold}%` : 'default';
  return `| ${escapeMarkdown(name)} | ${script} | ${text(w.queryMode)} | ${text(w.scale)} | ${text(w.duration)} | ${threshold} | ${conf || '–'} |`;
}
