/**
 * How the run went, for the report's details: the rounds and the order the runs ran in, and every raw
 * sample per cell and arm.
 */
import type { RunResult, Sample } from '../../results/result-types.js';
import { omitted, type ReportContext } from './markdown-context.js';
import { escapeMarkdown } from '../markdown-escape.js';
import type { TrimId } from './markdown-size.js';
import { formatBytes } from '../../util/bytes.js';
import { isMemoryBytes } from '../../results/memory.js';

export function roundsAndOrder(ctx: ReportContext, trims: ReadonlySet<TrimId>): string[] {
  const { result } = ctx;
  const plan = result.plan;
  const executed = plan?.executed ?? [];
  const completed = result.samples.reduce((max, s) => (s.status === 'ok' ? Math.max(max, s.round) : max), 0);
  const measured = executed.filter((r) => r.kind === 'measured').length;
  const warmups = executed.length - measured;
  const retries = executed.filter((r) => r.attempt > 1).length;
  const failed = result.samples.filter((s) => s.status !== 'ok').length;
  const lines = [
    `Seed ${plan?.seed ?? '?'}, arm order ${escapeMarkdown(String(plan?.order ?? '?'))}, ${plan?.rounds ?? '?'} ` +
      `rounds planned, ${completed} with results; ${measured} measured runs, ${warmups} warm-ups, ` +
      `${retries} retries, ${failed} failed runs.`,
  ];
  if (executed.length === 0) {
    lines.push('', '_The results record no execution order._');
  } else if (trims.has('order')) {
    lines.push('', omitted(ctx, 'The execution order'));
  } else {
    lines.push(
      '',
      'Runs in the order they ran, per round and cell (w: warm-up, ✗: failed, #n: attempt n):',
      '',
      ...executionOrder(executed),
    );
  }
  return lines;
}

function executionOrder(executed: NonNullable<RunResult['plan']>['executed']): string[] {
  const lines: string[] = [];
  let round: number | null = null;
  let groups: string[] = [];
  let cell = '';
  let runs: string[] = [];
  const flushCell = () => {
    if (runs.length > 0) groups.push(`${cell} ${runs.join(' ')}`);
    runs = [];
  };
  const flushRound = () => {
    flushCell();
    if (round !== null) lines.push(`- round ${round}: ${groups.join(' · ')}`);
    groups = [];
  };
  for (const run of executed) {
    if (run.round !== round) {
      flushRound();
      round = run.round;
    }
    const id = `${escapeMarkdown(`${run.workload}@${run.clients}`)}:`;
    if (id !== cell) {
      flushCell();
      cell = id;
    }
    const marks = [
      run.kind === 'warmup' ? 'w' : '',
      run.status === 'failed' ? '✗' : '',
      run.attempt > 1 ? `#${run.attempt}` : '',
    ].join('');
    runs.push(`${escapeMarkdown(run.arm)}${marks ? `(${marks})` : ''}`);
  }
  flushRound();
  return lines;
}

export function rawSamples(ctx: ReportContext): string[] {
  const { result, c } = ctx;
  const byCell = new Map<string, Map<string, Sample[]>>();
  const key = (workload: string, clients: number) => JSON.stringify([workload, clients]);
  const cells = [...(result.plan?.cells ?? []), ...result.samples];
  for (const { workload, clients } of cells) {
    if (!byCell.has(key(workload, clients))) byCell.set(key(workload, clients), new Map());
  }
  for (const s of result.samples) {
    const arms = byCell.get(key(s.workload, s.clients))!;
    arms.set(s.arm, [...(arms.get(s.arm) ?? []), s]);
  }
  const armOrder = result.arms.map((a) => a.label);
  const rows: string[] = [];
  for (const [cellKey, arms] of byCell) {
    const [workload, clients] = JSON.parse(cellKey) as [string, number];
    const labels = [...new Set([...armOrder.filter((a) => arms.has(a)), ...arms.keys()])];
    for (const arm of labels) {
      const samples = [...(arms.get(arm) ?? [])].sort((a, b) => a.round - b.round || a.attempt - b.attempt);
      const values = samples.map((s) => {
        const v = s.metrics[c.metric];
        if (s.status !== 'ok') return '✗';
        if (v === undefined || !Number.isFinite(v)) return '?';
        return isMemoryBytes(c.metric) ? formatBytes(v) : v.toFixed(ctx.metric.decimals);
      });
      rows.push(
        `| ${escapeMarkdown(workload)} | ${clients} | ${escapeMarkdown(arm)} | ${values.join(', ') || '–'} |`,
      );
    }
  }
  if (rows.length === 0) return ['_No samples recorded._'];
  return [
    `In round order; ✗: failed run (excluded), ?: no ${ctx.metric.label} value.`,
    '',
    `| workload | clients | arm | ${ctx.metric.label} per run |`,
    '|:---|---:|:---|:---|',
    ...rows,
  ];
}
