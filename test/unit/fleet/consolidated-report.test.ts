/**
 * The consolidated report (the comment of `mode: consolidate` and `pgperf consolidate --format markdown`)
 * over a real results document split into shards by cell, on one or two machine classes.
 */
import { describe, expect, it } from 'vitest';
import { consolidateShards } from '../../../src/flows/consolidate/shard-merge.js';
import {
  consolidatedReportInput,
  judgeConsolidation,
} from '../../../src/flows/consolidate/consolidated-decision.js';
import { environmentFingerprint } from '../../../src/machine/fingerprint.js';
import {
  renderConsolidatedComment,
  renderConsolidatedSummary,
} from '../../../src/core/report/markdown/consolidated-markdown.js';
import { cellId } from '../../../src/core/results/result-types.js';
import { shardDocuments, whole, withRegression } from './shard-documents.js';

const shards = shardDocuments;

describe('the consolidated report', () => {
  it('starts with the marker and the verdict over the classes, then one section per machine class', () => {
    const a = shards(3);
    const b = shards(3, 'Other CPU 9000');
    const judged = judgeConsolidation(consolidateShards([...a, ...b]));
    expect(judged.classes).toHaveLength(2);
    const text = renderConsolidatedComment(consolidatedReportInput(judged), 'fleet');
    const lines = text.split('\n');
    expect(lines[0]).toBe('<!-- pgperf:comment-id=fleet -->');
    expect(lines[1]).toMatch(
      /^\S+ \*\*.+\*\*(: .+)? · 2 machine classes · plan `0123456789abcdef`, 3 shards$/,
    );
    for (const c of judged.classes) {
      expect(text).toContain(`## Machine class \`${c.fingerprint}\``);
      expect(text).toContain(`- \`${c.fingerprint}\``);
    }
    expect(text).toContain('Other CPU 9000');
    expect(text).not.toContain('Incomplete');
    // The same verdict as the unsharded document: Holm over every cell of the class.
    const sameClass = judged.classes.find((c) => c.fingerprint === environmentFingerprint(whole).id)!;
    expect(sameClass.result.plan.cells.map(cellId)).toEqual(whole.plan.cells.map(cellId));
    expect(sameClass.comparison.comparisons[0]!.familySize).toBe(whole.plan.cells.length);
    // The summary is the same without the marker.
    expect(renderConsolidatedSummary(consolidatedReportInput(judged))).toBe(lines.slice(1).join('\n'));
  });

  it('names the missing shard above everything, and stays within the size limit', () => {
    const judged = judgeConsolidation(consolidateShards(shards(3).slice(0, 2)));
    expect(judged.decision).toMatchObject({ verdict: 'inconclusive', outcome: 'incomplete', exitCode: 3 });
    expect(judged.decision.status.description).toBe('Incomplete: shard 3 of 3 missing; no verdict');
    const text = renderConsolidatedComment(consolidatedReportInput(judged), 'default', 6000);
    expect(text.length).toBeLessThanOrEqual(6000);
    expect(text.split('\n\n')[1]).toMatch(
      /^⚠️ \*\*Incomplete, no verdict\*\*: shard 3 of 3 missing on `[0-9a-f]{16}`/,
    );
    expect(text).toContain('shards 1, 2 of 3');
  });
});

describe('accepted trade-offs in a consolidation', () => {
  const regressed = () =>
    consolidateShards(shardDocuments(3, whole.environment.cpuModel, withRegression('select-only@2', 0.8)));

  it('a regression in one shard fails the consolidation; its acceptance for this head passes it, for another head not', () => {
    const failed = judgeConsolidation(regressed());
    expect(failed.decision.outcome).toBe('failed');
    const failing = failed.decision.cells.filter((c) => c.failsGate);
    expect(failing.map((c) => c.id)).toEqual(['select-only@2']);
    const deltaPct = failing[0]!.deltaPct!;
    expect(deltaPct).toBeCloseTo(-20, 0);

    const acceptance = {
      workload: 'select-only',
      clients: 2,
      metric: 'tps',
      sha: 'b'.repeat(40),
      deltaPct,
      by: 'maintainer',
      reason: 'the lock fix wins elsewhere',
    };
    const passed = judgeConsolidation(regressed(), 'regression', {
      headSha: 'b'.repeat(40),
      acceptances: [acceptance],
    });
    expect(passed.decision.outcome).toBe('passed');
    expect(passed.decision.cells.find((c) => c.id === 'select-only@2')?.accepted?.state).toBe('valid');
    // The class's own section says the same.
    expect(passed.classes[0]!.decision.outcome).toBe('passed');

    const moved = judgeConsolidation(regressed(), 'regression', {
      headSha: 'e'.repeat(40),
      acceptances: [acceptance],
    });
    expect(moved.decision.outcome).toBe('failed');
  });
});
