/**
 * The profile movers of an attribution's culprits (core/attribution/culprit-movers.ts): each counted commit
 * left its own per-transaction profile under <out>/counts/<sha>/profiles/ (cachegrind only); for each
 * culprit and workload, the differential profile of its two ends (diffCosts, as a comparison's profiles)
 * is written in full as <out>/movers/<culprit>.<workload>.tsv and its largest movers kept in the report. A
 * profile that is not there (perf counts none; a commit whose counts an older run's journal held may have
 * none) leaves that culprit's movers missing, with why.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  culpritProfileEnds,
  moversKey,
  topMovers,
  withMovers,
  type MoversFound,
} from '../../core/attribution/culprit-movers.js';
import type { AttributionReport } from '../../core/attribution/attribution-report.js';
import { short } from '../../core/util/commit-id.js';
import { errorMessage } from '../../core/util/errors.js';
import { writeAtomically } from '../../machine/os/atomic-write.js';
import { armProfileName, parseArmProfile } from '../../postgres/instructions/arm-profile.js';
import type { FunctionCost } from '../../postgres/instructions/cachegrind-file.js';
import { diffCosts, profileText } from '../../postgres/instructions/profile-diff.js';

/** Where a commit's counting run writes (its cachegrind files and profiles under profiles/). */
export function countRunDir(outDir: string, sha: string): string {
  return path.join(outDir, 'counts', short(sha));
}

/** The profile directory of a counting run. */
export const COUNT_PROFILE_DIR = 'profiles';

/** The full differential profiles of the culprits, under --out. */
export const MOVERS_DIR = 'movers';

export interface MoversContext {
  outDir: string;
  /** 'cachegrind', or the CPU's counter (which gives no per-function profile). */
  counterKind: 'cachegrind' | 'perf';
  /** Commits whose counts the journal held (not counted by this run). */
  fromJournal: ReadonlySet<string>;
}

/** The report with every culprit change's movers, or why they are missing. */
export async function attachMovers(r: AttributionReport, ctx: MoversContext): Promise<AttributionReport> {
  const ends = culpritProfileEnds(r);
  if (ends.length === 0) return r;
  const found = new Map<string, MoversFound>();
  if (ctx.counterKind !== 'cachegrind') {
    const missing = `the counter ${r.counter} gives no per-function profile (--instruction-counter cachegrind does)`;
    for (const e of ends) found.set(moversKey(e.sha, e.workload), { missing });
    return withMovers(r, found);
  }
  const profiles = new Map<string, Promise<Map<string, FunctionCost>>>();
  const profileOf = (sha: string, workload: string) => {
    const key = moversKey(sha, workload);
    let p = profiles.get(key);
    if (!p) {
      p = readProfile(ctx, sha, workload);
      profiles.set(key, p);
    }
    return p;
  };
  await mkdir(path.join(ctx.outDir, MOVERS_DIR), { recursive: true });
  for (const e of ends) {
    const key = moversKey(e.sha, e.workload);
    try {
      const [base, head] = [await profileOf(e.base, e.workload), await profileOf(e.head, e.workload)];
      const rows = diffCosts(base, head);
      const file = path.join(MOVERS_DIR, `${short(e.sha)}.${e.workload}.tsv`);
      await writeAtomically(
        path.join(ctx.outDir, file),
        profileText(
          rows,
          `${e.workload} at 1 client: ${short(e.sha)} vs its parent (the counted profiles of ${short(e.head)} vs ${short(e.base)})`,
        ),
      );
      found.set(key, { movers: { base: e.base, head: e.head, file, top: topMovers(rows) } });
    } catch (err) {
      found.set(key, { missing: errorMessage(err) });
    }
  }
  return withMovers(r, found);
}

/** A counted commit's per-transaction profile of a workload; throws saying why it cannot be had. */
async function readProfile(
  ctx: MoversContext,
  sha: string,
  workload: string,
): Promise<Map<string, FunctionCost>> {
  const file = path.join(
    countRunDir(ctx.outDir, sha),
    COUNT_PROFILE_DIR,
    armProfileName(workload, short(sha)),
  );
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`${file}: ${errorMessage(e)}`);
    throw new Error(
      `no profile of ${short(sha)} (${file} is missing${ctx.fromJournal.has(sha) ? ': its counts came from the journal of an earlier run that kept none' : ''})`,
    );
  }
  return parseArmProfile(text, file);
}
