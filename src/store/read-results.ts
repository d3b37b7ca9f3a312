/**
 * The one way a results document is read, whoever reads it (`pgperf compare`, the Action's mode comment,
 * consolidation, history, the store's import, save and load, a stored baseline): the schema version, the
 * shape of every field the analysis uses (results-schema.ts), then what consolidation checks of a shard
 * (core/results/check-results.ts: duplicate samples, undeclared arms, samples of cells outside the plan,
 * metric values no run can produce, samples of a head the document says runs base's compiled code). Every problem is a UserError naming the source, the field and what
 * is expected; a file that is not JSON is named with the line and column, never quoted. Unknown top-level
 * fields are warned about through `warn`, not refused (a newer pgperf may add fields).
 */
import { UserError } from '../core/util/errors.js';
import { FileReadError, readRegularFile } from '../machine/os/regular-file.js';
import { jsonSyntaxError } from '../core/util/json-syntax.js';
import { checkResultsDocument } from '../core/results/check-results.js';
import { describeIssues, resultsSchema } from '../core/results/results-schema.js';
import { RESULTS_SCHEMA_VERSION, type RunResult } from '../core/results/result-types.js';

/** How a reader reports what it takes but warns about. */
export interface ReadOptions {
  /** Where warnings go (a logger's warn); default: a "warning: ..." line on stderr. */
  warn?: (message: string) => void;
}

const stderrWarning = (message: string) => {
  process.stderr.write(`warning: ${message}\n`);
};

/**
 * Reads and validates a results file written by `pgperf run` (or the Action). Only a regular file is read,
 * within a deadline (machine/os/regular-file.ts): a FIFO or a hung mount is an error, not a wait.
 */
export async function readResults(path: string, options: ReadOptions = {}): Promise<RunResult> {
  let text: string;
  try {
    text = await readRegularFile(path);
  } catch (e) {
    if (!(e instanceof FileReadError)) throw e;
    throw new UserError(`results file ${path}: ${e.reason}`);
  }
  return parseResults(text, path, options);
}

/** Parses and validates a results document's text; `source` names it in errors. */
export function parseResults(text: string, source: string, options: ReadOptions = {}): RunResult {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text: said by position instead (the path may be a symlink to anything).
    throw new UserError(
      `${source} is not valid JSON (${jsonSyntaxError(text)}); expected a results document from pgperf run`,
    );
  }
  return validateResults(doc, source, options);
}

/**
 * Checks a parsed document: the schema version first (a newer one is refused, never misread), then the
 * shape, then its consistency.
 */
export function validateResults(doc: unknown, source: string, options: ReadOptions = {}): RunResult {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new UserError(`${source}: expected a JSON object (a results document from pgperf run)`);
  }
  const version = (doc as Record<string, unknown>).schemaVersion;
  if (version !== RESULTS_SCHEMA_VERSION) {
    const newer = typeof version === 'number' && version > RESULTS_SCHEMA_VERSION;
    throw new UserError(
      `${source}: schemaVersion is ${JSON.stringify(version)?.slice(0, 20)}; this pgperf reads schemaVersion ${RESULTS_SCHEMA_VERSION}` +
        (newer ? ' (the file was written by a newer pgperf: upgrade pgperf to read it)' : ''),
    );
  }
  const parsed = resultsSchema.safeParse(doc);
  if (!parsed.success) throw new UserError(`${source}: ${describeIssues(parsed.error, doc)}`);
  const result = doc as RunResult;
  const warn = options.warn ?? stderrWarning;
  for (const warning of checkResultsDocument(result, source)) warn(warning);
  return result;
}
