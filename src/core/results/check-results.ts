/**
 * What a results document must be beyond its shape (results-schema.ts) before anything reads numbers from
 * it: the checks consolidation makes of a shard (src/flows/consolidate/verify-shards.ts), made of every
 * document every reader takes (`pgperf compare`, the Action's mode comment, which reads a fork's artifact,
 * history, the store's import, save and load, a stored baseline). A document that fails one is refused, a
 * UserError naming the source and the field:
 *
 * - every arm label once (`arms`), every cell once (`plan.cells`);
 * - every sample (of `samples` and of `confirmation.samples`) of a declared arm and of a cell of
 *   `plan.cells` (an empty cell list with samples is refused), each measured run once (the same round,
 *   cell, arm and attempt twice would count one measurement twice);
 * - every metric of a sample within what the metric can be (PLAUSIBLE in metrics.ts);
 * - the confirmation block's cells of a declared arm and of `plan.cells`;
 * - no sample of a head the document says runs base's compiled code with base's settings (`compiledCode`
 *   identical: true, unchanged-heads.ts): such a head is never measured, and the claim would decide its
 *   cells whatever its samples say.
 *
 * Top-level fields this pgperf does not know are warned about, never refused: a newer pgperf of the same
 * schemaVersion may add optional fields (an incompatible change bumps schemaVersion, which is refused), and
 * an older pgperf reading them must still compare what it knows. The warning names the fields, so a typo
 * of a known one shows.
 *
 * Names and labels from the document are shown as plain text, cut short: an error never echoes a file's
 * content beyond the identifiers it names.
 */
import { plainText } from '../util/plain-text.js';
import { UserError } from '../util/errors.js';
import { isMetricName, metricValueProblem } from './metrics.js';
import { resultsSchema } from './results-schema.js';
import { unchangedHeadsOf } from './unchanged-heads.js';
import { cellId, type CellKey, type RunResult, type Sample } from './result-types.js';

/**
 * Top-level fields of the document type that the schema leaves unchecked (recorded, not read back by
 * analysis): known all the same.
 */
const UNCHECKED_FIELDS = ['pinning', 'calibration'] as const;

/** Every top-level field this pgperf writes or reads. */
export const KNOWN_FIELDS: ReadonlySet<string> = new Set([
  ...Object.keys(resultsSchema.shape),
  ...UNCHECKED_FIELDS,
]);

// Every field of RunResult is known: a field added to the type but neither to the schema nor to
// UNCHECKED_FIELDS fails to compile here (and would be warned about on every read).
type UnknownToReaders = Exclude<
  keyof RunResult,
  keyof typeof resultsSchema.shape | (typeof UNCHECKED_FIELDS)[number]
>;
const everyFieldKnown: [UnknownToReaders] extends [never] ? true : UnknownToReaders = true;
void everyFieldKnown;

/** Longest name shown from a document; fields listed in a warning. */
const SHOWN_CHARS = 64;
const LISTED_FIELDS = 8;

/** A name or label read from a document, as one line of plain text, cut short. */
export function shownName(text: string): string {
  return plainText(text, SHOWN_CHARS);
}

/** What identifies one measured run, exactly: its cell, arm, round and attempt. */
export function sampleIdentity(
  s: Pick<Sample, 'workload' | 'clients' | 'arm' | 'round'> & { attempt?: number },
): string {
  return JSON.stringify([s.workload, s.clients, s.arm, s.round, s.attempt ?? 1]);
}

/** One measured run as messages name it (names cut short: see sampleIdentity for comparing). */
export function sampleKey(
  s: Pick<Sample, 'workload' | 'clients' | 'arm' | 'round'> & { attempt?: number },
): string {
  return `${shownName(cellId(s))} arm ${shownName(s.arm)} round ${s.round} attempt ${s.attempt ?? 1}`;
}

/**
 * Checks a document whose shape the schema accepted (see the module comment).
 * @param source names the document in messages (a path, "run ID in STORE").
 * @returns warnings (unknown top-level fields), each naming `source`.
 * @throws UserError naming `source`, the field and what is wrong.
 */
export function checkResultsDocument(doc: RunResult, source: string): string[] {
  const arms = new Set<string>();
  for (const [i, arm] of doc.arms.entries()) {
    if (arms.has(arm.label)) {
      throw new UserError(
        `${source}: arms[${i}] is labelled '${shownName(arm.label)}' like an earlier arm; each arm label is given once`,
      );
    }
    arms.add(arm.label);
  }
  const cells = new Set<string>();
  for (const [i, cell] of doc.plan.cells.entries()) {
    const id = cellId(cell);
    if (cells.has(id)) throw new UserError(`${source}: plan.cells[${i}] lists ${shownName(id)} twice`);
    cells.add(id);
  }
  const context: Context = { source, arms, cells, planCells: doc.plan.cells };
  checkSamples(doc.samples, 'samples', context);
  if (doc.confirmation) {
    for (const [i, c] of doc.confirmation.cells.entries()) {
      checkCellAndArm({ ...c, arm: c.head }, `confirmation.cells[${i}]`, context);
    }
    checkSamples(doc.confirmation.samples, 'confirmation.samples', context);
  }
  checkSameCodeClaim(doc, source);
  return unknownFields(doc, source);
}

/**
 * A head the document says runs base's compiled code with base's settings is never measured
 * (unchanged-heads.ts): a sample of it contradicts the claim, which would decide its cells "no change"
 * whatever the sample says.
 */
function checkSameCodeClaim(doc: RunResult, source: string): void {
  const unchanged = new Set(unchangedHeadsOf(doc).map((c) => c.head));
  if (unchanged.size === 0) return;
  const fields = [
    { field: 'samples', samples: doc.samples },
    { field: 'confirmation.samples', samples: doc.confirmation?.samples ?? [] },
  ];
  for (const { field, samples } of fields) {
    const i = samples.findIndex((s) => unchanged.has(s.arm));
    if (i < 0) continue;
    const s = samples[i]!;
    const claim = doc.compiledCode!.findIndex((c) => c.head === s.arm);
    throw new UserError(
      `${source}: compiledCode[${claim}] says arm '${shownName(s.arm)}' runs base's compiled code with base's settings (identical: true), so it is never measured, yet ${field}[${i}] is a measured run of it (${sampleKey(s)}, ${s.status}): the document contradicts itself; expected no sample of that arm, or identical: false`,
    );
  }
}

interface Context {
  source: string;
  arms: ReadonlySet<string>;
  cells: ReadonlySet<string>;
  planCells: readonly CellKey[];
}

function checkSamples(samples: readonly Sample[], field: string, c: Context): void {
  const seen = new Map<string, number>();
  for (const [i, s] of samples.entries()) {
    const where = `${field}[${i}]`;
    checkCellAndArm(s, where, c);
    const id = sampleIdentity(s);
    const before = seen.get(id);
    if (before !== undefined) {
      throw new UserError(
        `${c.source}: ${field}[${before}] and ${where} are the same run (${sampleKey(s)}): duplicate samples would count one measurement twice`,
      );
    }
    seen.set(id, i);
    for (const [name, value] of Object.entries(s.metrics)) {
      if (!isMetricName(name)) continue;
      const problem = metricValueProblem(name, value, s.status);
      if (problem) throw new UserError(`${c.source}: ${where}.metrics.${name} is ${value}: ${problem}`);
    }
  }
}

function checkCellAndArm(s: CellKey & { arm: string }, where: string, c: Context): void {
  if (!c.arms.has(s.arm)) {
    throw new UserError(
      `${c.source}: ${where} is of the arm '${shownName(s.arm)}', which is not an arm of the run (arms: ${[...c.arms].map(shownName).join(', ')})`,
    );
  }
  if (!c.cells.has(cellId(s))) {
    throw new UserError(
      `${c.source}: ${where} is of the cell ${shownName(cellId(s))}, which is not a cell of plan.cells (${listCells(c.planCells)})`,
    );
  }
}

/** At most this many cells are listed in a message; the rest are counted. */
const LISTED_CELLS = 8;

function listCells(cells: readonly CellKey[]): string {
  if (cells.length === 0) return 'none: the plan is empty';
  const ids = cells.map((cell) => shownName(cellId(cell)));
  const shown = ids.slice(0, LISTED_CELLS).join(', ');
  return ids.length > LISTED_CELLS ? `${shown} and ${ids.length - LISTED_CELLS} more` : shown;
}

function unknownFields(doc: RunResult, source: string): string[] {
  const unknown = Object.keys(doc).filter((k) => !KNOWN_FIELDS.has(k));
  if (unknown.length === 0) return [];
  const listed = unknown.slice(0, LISTED_FIELDS).map((k) => `'${shownName(k)}'`);
  const more = unknown.length > LISTED_FIELDS ? ` and ${unknown.length - LISTED_FIELDS} more` : '';
  return [
    `${source}: unknown top-level field${unknown.length > 1 ? 's' : ''} ${listed.join(', ')}${more}, ignored (a newer pgperf may add fields; check the spelling of a field you edited)`,
  ];
}
