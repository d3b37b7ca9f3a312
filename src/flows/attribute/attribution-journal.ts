/**
 * The journal of an attribution (docs/attribute.md#resuming-and-reusing): `<out>/attribution-journal.json`,
 * every commit's counts and every answer to "do these two commits run the same code?", rewritten
 * atomically as each comes. A run with the same `--out` reads it first and takes what it holds instead of
 * counting (or building) again: an interrupted attribution resumes where it stopped, and a second one over
 * a longer range (a later `--to`, another floor or budget) reuses every commit the first measured.
 *
 * The journal is kept for one *counting*: what makes two counts of one commit comparable (the repository,
 * the `--from` end whose pgbench drives every count, the workloads, the build options, the counter and the
 * compiler). A run whose counting differs is refused, naming what differs; the range's other end, the
 * floor and the budget are free, since they choose which commits are counted, not what a count is.
 * Commits that failed to build or count are not kept: a resumed run tries them again.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { PointCounts } from '../../core/attribution/point-judgement.js';
import { canonicalJson } from '../../core/util/canonical-json.js';
import { short } from '../../core/util/commit-id.js';
import { UserError, errorMessage } from '../../core/util/errors.js';
import { stableHash } from '../../core/util/stable-hash.js';
import { writeAtomically } from '../../machine/os/atomic-write.js';

export const JOURNAL_FILE = 'attribution-journal.json';

/** What a count depends on; two runs whose counting is equal may share their counts. */
export interface JournalCounting {
  /** The repository's URL (or local path). */
  repo: string;
  /** The `--from` commit: its pgbench drives every count. */
  from: string;
  /** Per workload, its name and the hash of its resolved definition and instruction settings. */
  workloads: Array<{ name: string; definition: string }>;
  buildOptions: string[];
  /** The counter, as the report names it ("cachegrind", "perf (instructions:u)"). */
  counter: string;
  /** The compiler of the builds (first line of its --version, and its target). */
  compiler: string;
}

/** The counting of a request: each workload by its name and the hash of what it runs. */
export function journalCounting(
  parts: Omit<JournalCounting, 'workloads' | 'buildOptions'> & {
    workloads: ReadonlyArray<{ workload: { name: string }; settings: unknown }>;
    buildOptions: readonly string[];
  },
): JournalCounting {
  return {
    ...parts,
    workloads: parts.workloads.map((i) => ({
      name: i.workload.name,
      definition: stableHash(canonicalJson(i)),
    })),
    buildOptions: [...parts.buildOptions],
  };
}

const countingSchema = z.object({
  repo: z.string(),
  from: z.string(),
  workloads: z.array(z.object({ name: z.string(), definition: z.string() })),
  buildOptions: z.array(z.string()),
  counter: z.string(),
  compiler: z.string(),
});

const journalSchema = z.object({
  kind: z.literal('pgperf-attribution-journal'),
  version: z.literal(1),
  counting: countingSchema,
  /** Per commit (full sha), per workload, the instructions per transaction of every repetition. */
  points: z.record(z.string(), z.record(z.string(), z.array(z.number()))),
  /** "source a..b" or "code a..b" (full shas) -> whether b runs a's code. */
  sameCode: z.record(z.string(), z.boolean()),
});

type JournalDocument = z.output<typeof journalSchema>;

/** How two countings differ, one phrase per field, with the flag that gave it; empty when equal. */
export function countingDifferences(was: JournalCounting, now: JournalCounting): string[] {
  const out: string[] = [];
  const field = (flag: string, a: string, b: string) => {
    if (a !== b) out.push(`${flag} (journal: ${a}; now: ${b})`);
  };
  field('--repo', was.repo, now.repo);
  field('--from', short(was.from), short(now.from));
  const names = (c: JournalCounting) => c.workloads.map((w) => w.name).join(', ') || 'none';
  if (names(was) !== names(now)) {
    field('--workload', names(was), names(now));
  } else {
    const changed = now.workloads.filter((w, i) => w.definition !== was.workloads[i]!.definition);
    if (changed.length > 0) {
      out.push(
        `--workload (the definition or instructions settings of ${changed.map((w) => w.name).join(', ')} changed)`,
      );
    }
  }
  const options = (c: JournalCounting) => c.buildOptions.join(' ') || 'none';
  field('--build-option', options(was), options(now));
  field('--instruction-counter', was.counter, now.counter);
  field('the compiler', was.compiler, now.compiler);
  return out;
}

export interface AttributionJournal {
  /** The counts of a commit the journal holds. */
  counts(sha: string): PointCounts | undefined;
  /** Keeps a commit's counts (written before it returns). */
  recordCounts(sha: string, counts: PointCounts): Promise<void>;
  /** What the journal knows of whether `b` runs `a`'s code, by `how` (source, or compiled code). */
  sameCode(how: 'source' | 'code', a: string, b: string): boolean | undefined;
  recordSameCode(how: 'source' | 'code', a: string, b: string, same: boolean): Promise<void>;
  /** Commits with counts when the journal was opened (0: a new attribution). */
  readonly heldAtStart: number;
}

/**
 * Opens the journal under `outDir` for `counting`: the one there (refused when its counting differs, or
 * when it cannot be read), or a new one, written at once so an interruption before the first count
 * leaves a journal too.
 */
export async function openJournal(outDir: string, counting: JournalCounting): Promise<AttributionJournal> {
  const file = path.join(outDir, JOURNAL_FILE);
  const doc: JournalDocument = (await readJournal(file, counting)) ?? {
    kind: 'pgperf-attribution-journal',
    version: 1,
    counting,
    points: {},
    sameCode: {},
  };
  const write = () => writeAtomically(file, `${JSON.stringify(doc)}\n`);
  await write();
  const key = (how: 'source' | 'code', a: string, b: string) => `${how} ${a}..${b}`;
  return {
    heldAtStart: Object.keys(doc.points).length,
    counts: (sha) => doc.points[sha],
    async recordCounts(sha, counts) {
      doc.points[sha] = Object.fromEntries(Object.entries(counts).map(([w, v]) => [w, [...v]]));
      await write();
    },
    sameCode: (how, a, b) => doc.sameCode[key(how, a, b)],
    async recordSameCode(how, a, b, same) {
      doc.sameCode[key(how, a, b)] = same;
      await write();
    },
  };
}

/** The journal in `file`, or undefined when there is none; refused when unreadable or another counting. */
async function readJournal(file: string, counting: JournalCounting): Promise<JournalDocument | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UserError(`could not read the attribution journal ${file}: ${errorMessage(e)}`);
  }
  const fix = 'give another --out, or remove the journal to start over';
  let parsed: JournalDocument;
  try {
    parsed = journalSchema.parse(JSON.parse(text));
  } catch (e) {
    const why = e instanceof z.ZodError ? (e.issues[0]?.message ?? 'not a journal') : errorMessage(e);
    throw new UserError(`--out: ${file} is not an attribution journal pgperf can read (${why}): ${fix}`);
  }
  const differences = countingDifferences(parsed.counting, counting);
  if (differences.length > 0) {
    throw new UserError(
      `--out: ${file} is the journal of an attribution counted differently: ${differences.join('; ')}. ` +
        `Its counts cannot be reused: run with the same values to resume it, or ${fix}`,
    );
  }
  return parsed;
}
