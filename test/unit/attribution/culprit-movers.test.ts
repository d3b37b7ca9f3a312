/**
 * Each culprit's top profile movers (docs/attribute.md#profile-movers), with the builds and counts faked
 * (test/helpers/attribution-fakes.ts: each count leaves the commit's per-transaction profile, work_<i>
 * holding commit i's added work): the movers of every culprit in attribution.json, the terminal text and
 * attribution.md, the full differential profile under --out, and movers honestly missing where a
 * profile is (a resumed run whose journal's counts came from a run that kept none; the CPU's counter).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAttribution } from '../../../src/flows/attribute/attribution-flow.js';
import { attachMovers } from '../../../src/flows/attribute/culprit-profiles.js';
import type { AttributionReport } from '../../../src/core/attribution/attribution-report.js';
import { renderAttributionText } from '../../../src/core/report/attribution/attribution-text.js';
import { renderAttributionMarkdown } from '../../../src/core/report/attribution/attribution-markdown.js';
import { armProfileText, parseArmProfile } from '../../../src/postgres/instructions/arm-profile.js';
import { attributionFakes, attributionRequest, fakeProfile, sha } from '../../helpers/attribution-fakes.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'culprit-movers-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const HISTORY = { 3: 600, 5: 400, 8: 900, 10: -400 };
const request = (out: string) => attributionRequest(path.join(dir, 'cache'), path.join(dir, out));
/** The counted commit whose counts (and profile) a point carries. */
const countedAt = (r: AttributionReport, position: number) => {
  const p = r.points.find((x) => x.position === position)!;
  return p.sameCodeAs ?? p.sha;
};

describe("each culprit's top profile movers", () => {
  it('are the differential profile of its two ends, kept in attribution.json and shown', async () => {
    const f = attributionFakes(12, HISTORY);
    const report = await runAttribution(request('movers'), f.deps);
    const doc = JSON.parse(await readFile(path.join(dir, 'movers', 'attribution.json'), 'utf8'));
    expect(doc.culprits.map((c: { sha: string }) => c.sha)).toEqual([3, 5, 8, 10].map(sha));
    for (const c of report.culprits) {
      const m = c.changes[0]!.movers!;
      expect(m, c.sha).toBeDefined();
      // The parent's side is the counted commit whose code the parent runs (it may not be counted itself).
      expect([m.base, m.head]).toEqual([countedAt(report, c.position - 1), countedAt(report, c.position)]);
      expect(m.top.length).toBeGreaterThan(0);
      expect(m.top.length).toBeLessThanOrEqual(5);
    }
    const [added, , , removed] = report.culprits.map((c) => c.changes[0]!.movers!);
    expect(added!.top[0]).toEqual({
      fn: 'work_3',
      file: 'fake.c',
      baseIrPerTx: 0,
      headIrPerTx: 600,
      deltaIrPerTx: 600,
    });
    expect(removed!.top[0]).toMatchObject({ fn: 'ExecScan', baseIrPerTx: 20_000, headIrPerTx: 19_600 });
    // Only the functions that moved: work_3 alone (the full table has every function).
    expect(added!.top.map((x) => x.fn)).toEqual(['work_3']);
    expect(doc.culprits[0].changes[0].movers.top[0].fn).toBe('work_3');

    const tsv = await readFile(path.join(dir, 'movers', added!.file), 'utf8');
    expect(added!.file).toBe(path.join('movers', '0003aaa.sel.tsv'));
    expect(tsv.split('\n')[3]).toBe('600.0\t0.0\t600.0\twork_3\tfake.c');
    expect(tsv).toContain('0.0\t10000.0\t10000.0\texec_simple_query\tfake.c');

    const text = renderAttributionText(report);
    expect(text).toMatch(
      /0003aaa +\+600 .*add work 600\n {6}top movers \(self instructions\/tx, parent -> commit; all in movers\/0003aaa\.sel\.tsv\):\n {8}work_3 0 -> 600 \(\+600 instr\/tx\)\n {2}0005aaa/,
    );
    expect(text).toContain('ExecScan 20,000 -> 19,600 (-400 instr/tx)');
    const md = await readFile(path.join(dir, 'movers', 'attribution.md'), 'utf8');
    expect(md).toContain('Top movers of `0003aaa`');
    expect(md).toContain('| `work_3` | 0 | 600 | +600 |');
    expect(renderAttributionMarkdown(report)).toContain('| `ExecScan` | 20,000 | 19,600 | -400 |');
  });

  it('are missing with why for commits whose journaled counts came without a profile', async () => {
    // A first run (as an older pgperf, which kept no per-commit profile) is interrupted.
    const first = attributionFakes(12, HISTORY, { interruptAfter: 2, noProfiles: true });
    await expect(runAttribution(request('resumed'), first.deps)).rejects.toThrow('interrupted');
    const held = new Set(first.counted.map(sha));
    const second = attributionFakes(12, HISTORY);
    const report = await runAttribution(request('resumed'), second.deps);
    const changes = report.culprits.map((c) => c.changes[0]!);
    const missing = changes.filter((x) => x.moversMissing !== undefined);
    expect(missing.length).toBeGreaterThan(0);
    expect(changes.some((x) => x.movers !== undefined)).toBe(true);
    for (const c of report.culprits) {
      const ends = [countedAt(report, c.position - 1), countedAt(report, c.position)];
      const x = c.changes[0]!;
      if (ends.some((e) => held.has(e))) {
        expect(x.movers).toBeUndefined();
        expect(x.moversMissing).toMatch(
          /^no profile of \d{4}aaa \(.*per-tx\.tsv is missing: its counts came from the journal of an earlier run that kept none\)$/,
        );
      } else {
        expect(x.movers?.top[0]?.deltaIrPerTx).toBeCloseTo(x.changePerTx, 0);
      }
    }
    expect(renderAttributionText(report)).toMatch(/\n {6}no movers: no profile of \d{4}aaa/);
  });

  it('are missing with why when the CPU counter counted (no per-function profile)', async () => {
    const f = attributionFakes(12, HISTORY, { noProfiles: true });
    const counted = await runAttribution(request('perf'), f.deps);
    const r = await attachMovers(
      { ...counted, counter: 'perf (instructions:u)' },
      { outDir: path.join(dir, 'perf'), counterKind: 'perf', fromJournal: new Set() },
    );
    expect(r.culprits.map((c) => c.changes[0]!.moversMissing)).toEqual(
      Array(4).fill(
        'the counter perf (instructions:u) gives no per-function profile (--instruction-counter cachegrind does)',
      ),
    );
    expect(renderAttributionMarkdown(r)).toContain('No movers for `0003aaa`: the counter perf');
  });
});

describe('an arm profile file', () => {
  it('reads back what was written, and names the file and line it cannot read', () => {
    const costs = fakeProfile(5, HISTORY);
    expect(parseArmProfile(armProfileText(costs, 'sel: 0005aaa'), 'p.tsv')).toEqual(costs);
    expect(() => parseArmProfile('# x\nself_ir_per_tx\tfunction\tfile\nabc\tf\tx.c\n', 'p.tsv')).toThrow(
      "p.tsv:3: expected '<instructions per tx>\\t<function>\\t<file>', got 'abc\tf\tx.c'",
    );
    expect(() => parseArmProfile('1\tf\tx.c\n', 'p.tsv')).toThrow('p.tsv:1: expected the header');
  });
});
