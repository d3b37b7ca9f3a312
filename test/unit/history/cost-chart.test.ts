/**
 * The history site's chart of what each answer cost (#38 item 4): the page data holds one point per run
 * that recorded its cost, oldest first, with the wall time and its stages in one unit, and counts the runs
 * it leaves out (no cost recorded, runner canaries); the index draws it, or says there is nothing to draw.
 */
import { describe, expect, it } from 'vitest';
import { analyseHistory } from '../../../src/core/history/history-analysis.js';
import type { HistoryRun } from '../../../src/core/history/series.js';
import { historySiteData } from '../../../src/core/report/history/page-data.js';
import { renderHistorySite } from '../../../src/core/report/history/page-html.js';
import { commitSha, nightCost, noisyHistory } from './noisy-history.js';

const assets = { script: '/* uPlot */ window.uPlot = function () {};', css: '.u-legend{}' };

/** 14 nights, the last 4 with their cost, handed over newest first; a canary and a run still running. */
function history(): HistoryRun[] {
  const nights = noisyHistory({ nights: 14, costFrom: 10 });
  const canary: HistoryRun = {
    ...nights[13]!,
    runId: 'canary-013',
    source: { head: { ref: 'canary' }, canary: true },
  };
  const running: HistoryRun = { ...nights[12]!, runId: 'running-012', status: 'running' };
  return [...nights.reverse(), canary, running];
}

describe('the cost chart of the history site', () => {
  it('plots each run that recorded its cost, oldest first, the wall time and its stages in minutes', () => {
    const { cost } = historySiteData(analyseHistory(history()));
    expect(cost.runs.map((r) => r.runId)).toEqual(['night-010', 'night-011', 'night-012', 'night-013']);
    expect(cost.runs[0]).toMatchObject({
      t: Date.UTC(2026, 9, 11, 2) / 1000,
      sha: commitSha(10),
      date: '2026-10-11T02:00:00.000Z',
      text: 'answered in 2m25s: build 2s, counted runs 40s, 5 timed rounds 1m40s',
    });
    // Night 12 built for 10 minutes: the chart counts minutes.
    expect(nightCost(12).wallS).toBe(600 + 42 + 90 + 3);
    expect(cost.unit).toBe('min');
    expect(cost.lines.map((l) => [l.stage, l.label])).toEqual([
      ['wall', 'answer (wall time)'],
      ['build', 'build'],
      ['counted', 'counted runs'],
      ['timed', 'timed rounds'],
    ]);
    expect(cost.lines[0]!.values).toEqual([2.42, 2.52, 12.25, 2.38]);
    expect(cost.lines[1]!.values).toEqual([0.03, 0.03, 10, 0.03]);
    expect(cost.xRange![0]).toBeLessThan(cost.runs[0]!.t);
    expect({ withoutCost: cost.withoutCost, canaries: cost.canaries, undated: cost.undated }).toEqual({
      withoutCost: 10,
      canaries: 1,
      undated: 0,
    });
  });

  it('counts seconds while every answer took less than 10 minutes', () => {
    const { cost } = historySiteData(analyseHistory(noisyHistory({ nights: 12, costFrom: 10 })));
    expect(cost.unit).toBe('s');
    expect(cost.lines[0]!.values).toEqual([145, 151]);
  });

  it('draws it on the index and says which runs it leaves out', () => {
    const [index, page] = renderHistorySite(historySiteData(analyseHistory(history())), assets);
    const html = index!.html;
    expect(html).toContain('<h2>What each answer cost</h2>');
    expect(html).toContain('<div class="chart" id="cost-chart" data-cost-runs="4"></div>');
    expect(html).toContain(
      'Left out: 10 runs that recorded no cost (saved before pgperf recorded it, or stopped by a signal); 1 runner canary run (a check of the machine, not an answer).',
    );
    expect(html).toContain(assets.script);
    const json = JSON.parse(
      /<script type="application\/json" id="history-data">([\s\S]*?)<\/script>/.exec(html)![1]!,
    );
    expect(json.charts).toEqual([]);
    expect(json.cost.runs).toHaveLength(4);
    // The workload pages keep their own charts only.
    expect(page!.html).not.toContain('"cost":');
  });

  it('says so when no run recorded its cost, and loads no chart library on the index', () => {
    const [index] = renderHistorySite(historySiteData(analyseHistory(noisyHistory({ nights: 3 }))), assets);
    expect(index!.html).toContain(
      'No run recorded what its answer cost: nothing to plot (3 runs that recorded no cost (saved before pgperf recorded it, or stopped by a signal)).',
    );
    expect(index!.html).not.toContain(assets.script);
  });
});
