import { readFile } from 'node:fs/promises';
import { UserError, errorMessage } from '../core/util/errors.js';
import { describeIssues, resultsSchema } from '../core/results/results-schema.js';
import { RESULTS_SCHEMA_VERSION, type RunResult } from '../core/results/types.js';

/**
 * Reads a results document written by `pgperf run` (or the Action) and validates it against the results
 * schema. Every problem is a UserError naming the file, the field, the bad value and what is expected.
 */
export async function readResults(path: string): Promise<RunResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read results file ${path}: ${errorMessage(e)}`);
  }
  return parseResults(text, path);
}

/** Parses and validates a results document's text; `source` names it in errors. */
export function parseResults(text: string, source: string): RunResult {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new UserError(
      `${source} is not valid JSON (${errorMessage(e)}); expected a results document from pgperf run`,
    );
  }
  return validateResults(doc, source);
}

/** Checks a parsed document: the schema version first (a newer one is refused, never misread), then the shape. */
export function validateResults(doc: unknown, source: string): RunResult {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new UserError(`${source}: expected a JSON object (a results document from pgperf run)`);
  }
  const version = (doc as Record<string, unknown>).schemaVersion;
  if (version !== RESULTS_SCHEMA_VERSION) {
    const newer = typeof version === 'number' && version > RESULTS_SCHEMA_VERSION;
    throw new UserError(
      `${source}: schemaVersion is ${JSON.stringify(version)}; this pgperf reads schemaVersion ${RESULTS_SCHEMA_VERSION}` +
        (newer ? ' (the file was written by a newer pgperf: upgrade pgperf to read it)' : ''),
    );
  }
  const parsed = resultsSchema.safeParse(doc);
  if (!parsed.success) throw new UserError(`${source}: ${describeIssues(parsed.error, doc)}`);
  return doc as RunResult;
}
