/**
 * The side effects of an attribution as fakes over a synthetic first-parent history: commit i adds
 * `changes[i]` instructions per transaction to a level of 30,000 (every other commit touches docs only),
 * each build answers at once, each count gives three repetitions within ±0.04 %, and two builds run the
 * same compiled code when no commit between them changes the count. Each count leaves the commit's
 * per-transaction profile where a cachegrind count does: `work_<i>` holds commit i's added work, and a
 * negative change is taken off `ExecScan` (30,000 in all at commit 0). The fakes record which commits were
 * built and counted, so tests check what the flow asked for (test/unit/attribution/).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { armProfileName, armProfileText } from '../../src/postgres/instructions/arm-profile.js';
import { functionKey, type FunctionCost } from '../../src/postgres/instructions/cachegrind-file.js';
import type { AttributionDeps, AttributionRequest } from '../../src/flows/attribute/attribution-flow.js';
import { parseWorkload } from '../../src/drivers/load-workload.js';
import { emptyInstructionsRecord } from '../../src/core/results/instructions.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import type { BuiltInstall } from '../../src/postgres/builds/build-record.js';
import type { Toolchain } from '../../src/postgres/builds/toolchain.js';

export const selWorkload = parseWorkload(
  'name: sel\ntool: pgbench\nbuiltin: select-only\nscale: 1\nclients: [1]\nduration: 1\n',
  'sel.yml',
);

/** The full sha of commit i ("0003aaa..."). */
export const sha = (i: number) => `${String(i).padStart(4, '0')}${'a'.repeat(36)}`;

export interface FakeOptions {
  walk?: 'first-parent' | 'ancestry-path';
  /** Counting throws this (as an interruption would) once this many commits were counted. */
  interruptAfter?: number;
  /** The counts leave no profile (as perf's, or an older pgperf's, do). */
  noProfiles?: boolean;
}

/** Commit i's self instructions per transaction per function, adding up to its level. */
export function fakeProfile(i: number, changes: Record<number, number>): Map<string, FunctionCost> {
  const out = new Map<string, FunctionCost>();
  const add = (fn: string, ir: number) => out.set(functionKey('fake.c', fn), { fn, file: 'fake.c', ir });
  let scan = 20_000;
  for (const [k, d] of Object.entries(changes)) {
    if (Number(k) > i) continue;
    if (d > 0) add(`work_${k}`, d);
    else scan += d;
  }
  add('ExecScan', scan);
  add('exec_simple_query', 10_000);
  return out;
}

/** Commits 0..n; commit i adds changes[i] instructions per transaction; the others touch docs only. */
export function attributionFakes(n: number, changes: Record<number, number>, options: FakeOptions = {}) {
  const commits = Array.from({ length: n + 1 }, (_, i) => ({
    sha: sha(i),
    subject: changes[i] ? `add work ${changes[i]}` : `docs ${i}`,
  }));
  const indexOf = (binDir: string) => Number(path.basename(path.dirname(binDir)));
  const level = (i: number) =>
    30_000 + Object.entries(changes).reduce((s, [k, d]) => (Number(k) <= i ? s + d : s), 0);
  const built: number[] = [];
  const counted: number[] = [];
  const compared: Array<[number, number]> = [];
  /** The client bin dir of every count. */
  const clients: string[] = [];
  const deps: AttributionDeps = {
    runner: { run: () => Promise.reject(new Error('no process in this test')) },
    logger: memoryLogger(),
    probe: { valgrind: 'valgrind-3.22.0', hardware: false, hardwareWhy: 'not in this test' },
    toolchain: { compiler: { version: 'gcc 12', target: 'x86_64-linux-gnu' } } as Toolchain,
    range: async () => ({ commits, walk: options.walk ?? 'first-parent' }),
    build: async (req) => {
      const i = commits.findIndex((c) => c.sha === req.sha);
      built.push(i);
      return {
        installDir: `/installs/${i}`,
        binDir: `/installs/${i}/bin`,
        record: { cacheHit: true } as BuiltInstall['record'],
      };
    },
    count: async (items, req) => {
      if (options.interruptAfter !== undefined && counted.length >= options.interruptAfter) {
        throw new Error('interrupted (SIGINT)');
      }
      const i = indexOf(req.arms[0]!.binDir);
      counted.push(i);
      clients.push(req.clientBinDir ?? '');
      const record = emptyInstructionsRecord();
      for (const [rep, f] of [0.9996, 1, 1.0004].entries()) {
        record.samples.push({
          workload: items[0]!.workload.name,
          clients: 1,
          arm: req.arms[0]!.label,
          repetition: rep + 1,
          counter: 'cachegrind',
          shortInstructions: 0,
          longInstructions: 0,
          perTx: level(i) * f,
        });
      }
      if (!options.noProfiles) {
        const w = items[0]!.workload.name;
        const label = req.arms[0]!.label;
        await mkdir(path.join(req.runDir, 'profiles'), { recursive: true });
        await writeFile(
          path.join(req.runDir, 'profiles', armProfileName(w, label)),
          armProfileText(fakeProfile(i, changes), `${w}: ${label}`),
        );
      }
      return record;
    },
    compareCode: async (a, b) => {
      const [lo, hi] = [indexOf(a.binDir), indexOf(b.binDir)].sort((x, y) => x - y) as [number, number];
      compared.push([lo, hi]);
      let identical = true;
      for (let i = lo + 1; i <= hi; i++) if (changes[i] !== undefined) identical = false;
      return { head: 'newer', identical, files: 1, differingFiles: [], differingCount: identical ? 0 : 1 };
    },
  };
  return { commits, deps, built, counted, compared, clients };
}

/** A request over the fakes' history (the range comes from the fakes, whatever the refs). */
export function attributionRequest(
  cacheDir: string,
  out: string,
  overrides: Partial<AttributionRequest> = {},
): AttributionRequest {
  return {
    repo: { input: '/repo', url: 'file:///repo', local: true, path: '/repo' },
    from: 'v1',
    to: 'v2',
    cacheDir,
    extraOptions: [],
    workloads: [selWorkload],
    maxCommits: 40,
    outDir: out,
    ...overrides,
  };
}
