/**
 * attribution.json read back (docs/pr-commands.md#attribute-a-range): the report an attribute job wrote,
 * for the comment job that posts it. The attribute job built whatever its refs named, so its artifact is
 * checked as a fork's results are: every field the renderers use, with its type, or a UserError naming the
 * file and the field. Strings are rendered escaped (attribution-markdown.ts) whatever they hold.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { AttributionReport } from '../../core/attribution/attribution-report.js';
import { UserError, errorMessage } from '../../core/util/errors.js';

const num = z.number().finite();
const commit = { sha: z.string(), subject: z.string() };
const range = {
  workload: z.string(),
  from: z.string(),
  to: z.string(),
  commits: num,
  changePerTx: num,
};
const mover = z.object({
  fn: z.string(),
  file: z.string(),
  baseIrPerTx: num,
  headIrPerTx: num,
  deltaIrPerTx: num,
});

const reportSchema = z.object({
  repo: z.string(),
  from: z.object(commit),
  to: z.object(commit),
  commits: num,
  counter: z.string(),
  culprits: z.array(
    z.object({
      ...commit,
      position: num,
      changes: z.array(
        z.object({
          workload: z.string(),
          changePerTx: num,
          changePct: num,
          sharePct: num.nullable(),
          movers: z
            .object({ base: z.string(), head: z.string(), file: z.string(), top: z.array(mover) })
            .optional(),
          moversMissing: z.string().optional(),
        }),
      ),
    }),
  ),
  workloads: z.array(
    z.object({
      workload: z.string(),
      floorPct: num,
      fromPerTx: num,
      toPerTx: num,
      changePerTx: num,
      changePct: num,
      endsDiffer: z.boolean(),
      culprits: num,
      culpritSumPerTx: num,
      remainderPerTx: num,
      belowFloorPerTx: num,
      belowFloorRanges: num,
      unresolvedPerTx: num,
    }),
  ),
  points: z.array(
    z.object({
      ...commit,
      position: num,
      counted: z.boolean(),
      sameCodeAs: z.string().optional(),
      perTx: z.record(z.string(), num),
      repetitions: z.record(z.string(), z.array(num)),
    }),
  ),
  unresolved: z.array(z.object({ ...range, why: z.enum(['budget', 'unmeasured', 'unsteady']) })),
  unseen: z.array(z.object(range)),
  unmeasured: z.array(z.object({ ...commit, position: num, reason: z.string() })),
  budget: z.object({ maxCommits: num, counted: num, exhausted: z.boolean() }),
  cost: z.object({ builds: num, cacheHits: num, reused: num, buildS: num, countS: num, totalS: num }),
  outDir: z.string(),
});

/** The report in `file`; a UserError naming the file and the first field that is not what pgperf writes. */
export async function readAttributionReport(file: string): Promise<AttributionReport> {
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new UserError(`could not read the attribution ${file}: ${errorMessage(e)}`);
  }
  const parsed = reportSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(
      `${file} is not an attribution.json pgperf writes: ${issue.path.join('.') || '(the document)'}: ${issue.message}`,
    );
  }
  return parsed.data as AttributionReport;
}
