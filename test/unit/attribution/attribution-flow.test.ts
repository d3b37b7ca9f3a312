/**
 * The attribution flow with its side effects injected: the range, the builds, the counting and the
 * comparison of compiled code are fakes over a synthetic history, so the test checks what the flow makes
 * of them (attribution.json, progress lines, the refusals of a range) without git, a build or a server.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attributionRange,
  runAttribution,
  type AttributionRequest,
} from '../../../src/flows/attribute/attribution-flow.js';
import { parseWorkload } from '../../../src/drivers/load-workload.js';
import { memoryLogger } from '../../../src/core/util/logger.js';
import { UserError } from '../../../src/core/util/errors.js';
import { attributionFakes, attributionRequest, sha } from '../../helpers/attribution-fakes.js';
import { renderAttributionText } from '../../../src/core/report/attribution/attribution-text.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'attribution-flow-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const fakes = (n: number, changes: Record<number, number>, walk?: 'first-parent' | 'ancestry-path') =>
  attributionFakes(n, changes, walk ? { walk } : {});
const request = (out: string, overrides: Partial<AttributionRequest> = {}): AttributionRequest =>
  attributionRequest(path.join(dir, 'cache'), out, overrides);

describe('runAttribution', () => {
  it('names the commits that moved the counts in attribution.json, with the parts adding up', async () => {
    const f = fakes(12, { 3: 600, 5: 400, 8: 900, 10: -400 });
    const out = path.join(dir, 'four');
    const report = await runAttribution(request(out), f.deps);
    const doc = JSON.parse(await readFile(path.join(out, 'attribution.json'), 'utf8'));
    expect(doc.culprits.map((c: { sha: string }) => c.sha)).toEqual([sha(3), sha(5), sha(8), sha(10)]);
    expect(doc.culprits[3].changes[0].changePerTx).toBeCloseTo(-400, 6);
    const sum = doc.culprits.reduce(
      (s: number, c: { changes: Array<{ changePerTx: number }> }) => s + c.changes[0]!.changePerTx,
      0,
    );
    expect(sum).toBeCloseTo(doc.workloads[0].changePerTx, 6);
    expect(doc.workloads[0].remainderPerTx).toBeCloseTo(0, 6);
    expect(doc.points.length).toBeGreaterThanOrEqual(2);
    expect(doc.unresolved).toEqual([]);
    // Docs-only commits take an end's counts: fewer counted than built.
    expect(f.counted.length).toBeLessThan(f.built.length);
    expect(report.budget.counted).toBe(f.counted.length);
    const lines = (f.deps.logger as ReturnType<typeof memoryLogger>).lines;
    expect(
      lines.some((l) => /^attribute: \d+ of at most 13 commits counted; range 0000aaa\.\.\d{4}aaa/.test(l)),
    ).toBe(true);
    const text = renderAttributionText(report);
    expect(text).toContain('sel: 30,000 -> 31,500 instructions/tx (+1,500, +5.00%)');
    expect(text).toMatch(/0010aaa +-400 \(-1\.25%\) +-27 % +add work -400\n/);
    expect(text).toMatch(/remainder\s+0\s+\|/);
  });

  it('says when the budget runs out, and what is left unresolved', async () => {
    const f = fakes(64, { 10: 500, 30: 700, 50: -450 });
    const report = await runAttribution(request(path.join(dir, 'budget'), { maxCommits: 3 }), f.deps);
    expect(report.budget).toEqual({ maxCommits: 3, counted: 3, exhausted: true });
    expect(report.unresolved.length).toBeGreaterThan(0);
    expect(renderAttributionText(report)).toContain('the budget of counted commits ran out');
  });

  it('refuses a --from off the first-parent line of --to, and a range over 5000 commits', async () => {
    const off = fakes(3, {}, 'ancestry-path');
    await expect(attributionRange(request(dir), off.deps)).rejects.toThrow(
      /--from v1 \(0000aaa\) is not on the first-parent line of --to v2 \(0003aaa\)/,
    );
    const long = fakes(5001, {});
    const refused = attributionRange(request(dir), long.deps);
    await expect(refused).rejects.toBeInstanceOf(UserError);
    await expect(refused).rejects.toThrow(
      '--from v1 .. --to v2 holds 5001 commits on the first-parent line; an attribution searches from 1 to 5000: give a shorter range',
    );
    expect(await attributionRange(request(dir), fakes(5000, {}).deps)).toHaveLength(5001);
  });

  it('refuses a workload whose instructions cannot be counted, before the range is read', async () => {
    const f = fakes(3, {});
    const sysbench = parseWorkload(
      'name: sb\ntool: sysbench\nscript: oltp_point_select\nclients: [1]\n',
      'sb.yml',
    );
    await expect(runAttribution(request(dir, { workloads: [sysbench] }), f.deps)).rejects.toThrow(
      /--workload sb: its instructions cannot be counted/,
    );
    expect(f.built).toEqual([]);
  });
});
