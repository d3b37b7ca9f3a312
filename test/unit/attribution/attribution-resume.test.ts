/**
 * Resuming and reusing an attribution through its journal (<out>/attribution-journal.json), with the
 * builds and counts faked (test/helpers/attribution-fakes.ts): an interrupted run resumed with the same
 * --out counts nothing twice and ends with the report of an uninterrupted run; a longer range reuses every
 * commit the first run counted; a run counted differently is refused, naming what differs.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAttribution, type AttributionRequest } from '../../../src/flows/attribute/attribution-flow.js';
import { JOURNAL_FILE } from '../../../src/flows/attribute/attribution-journal.js';
import { parseWorkload } from '../../../src/drivers/load-workload.js';
import { UserError } from '../../../src/core/util/errors.js';
import { attributionFakes, attributionRequest, sha } from '../../helpers/attribution-fakes.js';
import { renderAttributionText } from '../../../src/core/report/attribution/attribution-text.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'attribution-resume-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const request = (out: string, overrides: Partial<AttributionRequest> = {}) =>
  attributionRequest(path.join(dir, 'cache'), path.join(dir, out), overrides);
const HISTORY = { 3: 600, 5: 400, 8: 900, 10: -400 };
/** The parts of a report that do not depend on how it was reached. */
const found = (r: Awaited<ReturnType<typeof runAttribution>>) => ({
  culprits: r.culprits,
  workloads: r.workloads,
  points: r.points,
  unresolved: r.unresolved,
  budget: r.budget,
});

describe('an attribution resumed from its journal', () => {
  it('counts nothing twice and ends as an uninterrupted run does', async () => {
    const whole = attributionFakes(12, HISTORY);
    const expected = await runAttribution(request('whole'), whole.deps);

    const first = attributionFakes(12, HISTORY, { interruptAfter: 3 });
    await expect(runAttribution(request('resumed'), first.deps)).rejects.toThrow('interrupted');
    expect(first.counted).toHaveLength(3);
    const journal = JSON.parse(await readFile(path.join(dir, 'resumed', JOURNAL_FILE), 'utf8'));
    expect(Object.keys(journal.points).sort()).toEqual(first.counted.map(sha).sort());

    const second = attributionFakes(12, HISTORY);
    const report = await runAttribution(request('resumed'), second.deps);
    // Not one commit counted twice, none compared twice, and together the commits of one whole run.
    expect(second.counted.filter((i) => first.counted.includes(i))).toEqual([]);
    expect([...first.counted, ...second.counted].sort()).toEqual([...whole.counted].sort());
    expect(second.compared.filter(([a, b]) => first.compared.some(([x, y]) => x === a && y === b))).toEqual(
      [],
    );
    // The counts of every commit are driven by the --from end's pgbench, though its counts were reused.
    expect(new Set(second.clients)).toEqual(new Set(['/installs/0/bin']));
    expect(found(report)).toEqual(found(expected));
    expect(report.cost.reused).toBe(3);
    expect(renderAttributionText(report)).toContain('(3 by an earlier run: the journal)');

    // A third run over the finished journal counts, builds and compares nothing.
    const third = attributionFakes(12, HISTORY);
    expect(found(await runAttribution(request('resumed'), third.deps))).toEqual(found(expected));
    expect([third.counted, third.built, third.compared]).toEqual([[], [], []]);
  });

  it('reuses what a shorter range counted for a longer one with the same --from', async () => {
    const short = attributionFakes(12, HISTORY);
    await runAttribution(request('longer'), short.deps);
    const long = attributionFakes(24, { ...HISTORY, 18: 700 });
    const report = await runAttribution(request('longer'), long.deps);
    expect(report.culprits.map((c) => c.sha)).toEqual([3, 5, 8, 10, 18].map(sha));
    // Commit 12, the shorter range's end, now lies inside: where the search asks for it, it is reused.
    expect(long.counted.filter((i) => short.counted.includes(i))).toEqual([]);
    expect(report.cost.reused).toBeGreaterThan(0);
    const fresh = attributionFakes(24, { ...HISTORY, 18: 700 });
    await runAttribution(request('fresh-longer'), fresh.deps);
    expect(long.counted.length).toBeLessThan(fresh.counted.length);
  });

  it('refuses a journal counted differently, naming what differs, before anything is built', async () => {
    await runAttribution(request('other'), attributionFakes(6, { 3: 600 }).deps);
    const other = parseWorkload(
      'name: sel\ntool: pgbench\nbuiltin: select-only\nscale: 2\nclients: [1]\nduration: 1\n',
      'sel.yml',
    );
    const cases: Array<[Partial<AttributionRequest>, RegExp]> = [
      [{ extraOptions: ['-Dcassert=true'] }, /--build-option \(journal: none; now: -Dcassert=true\)/],
      [{ workloads: [other] }, /--workload \(the definition or instructions settings of sel changed\)/],
      [
        { repo: { input: '/r2', url: 'file:///r2', local: true, path: '/r2' } },
        /--repo \(journal: file:\/\/\/repo; now: file:\/\/\/r2\)/,
      ],
    ];
    for (const [overrides, message] of cases) {
      const f = attributionFakes(6, { 3: 600 });
      const refused = runAttribution(request('other', overrides), f.deps);
      await expect(refused).rejects.toBeInstanceOf(UserError);
      await expect(refused).rejects.toThrow(message);
      await expect(refused).rejects.toThrow(
        /attribution-journal\.json is the journal of an attribution counted differently/,
      );
      expect(f.built).toEqual([]);
    }
    // Another --from: its pgbench drove every count.
    const f = attributionFakes(6, { 3: 600 });
    f.deps.range = async () => ({ commits: f.commits.slice(1), walk: 'first-parent' });
    await expect(runAttribution(request('other'), f.deps)).rejects.toThrow(
      /--from \(journal: 0000aaa; now: 0001aaa\)/,
    );
  });

  it('refuses a journal it cannot read, naming the file', async () => {
    await runAttribution(request('broken'), attributionFakes(6, { 3: 600 }).deps);
    await writeFile(path.join(dir, 'broken', JOURNAL_FILE), '{"kind":"something else"}');
    await expect(runAttribution(request('broken'), attributionFakes(6, { 3: 600 }).deps)).rejects.toThrow(
      /--out: .*broken\/attribution-journal\.json is not an attribution journal pgperf can read .*: give another --out, or remove the journal to start over/,
    );
  });
});
