import { readFile } from 'node:fs/promises';
import { UserError, errorMessage } from '../util/errors.js';
import { RESULTS_SCHEMA_VERSION, type RunResult } from './types.js';

/**
 * Reads a results document written by `pgperf run` and checks what the analysis relies on: the schema
 * version, the arms, the samples (cell, arm, round, status, metrics) and the plan's cells. Anything else
 * is trusted as written. Every problem is a UserError naming the file, the bad value and what is expected.
 */
export async function readResults(path: string): Promise<RunResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read results file ${path}: ${errorMessage(e)}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new UserError(
      `${path} is not valid JSON (${errorMessage(e)}); expected a results document from pgperf run`,
    );
  }
  const bad = (what: string): never => {
    throw new UserError(`${path}: ${what}`);
  };
  if (!isObject(doc)) return bad('expected a JSON object (a results document from pgperf run)');
  if (doc.schemaVersion !== RESULTS_SCHEMA_VERSION) {
    return bad(
      `schemaVersion is ${JSON.stringify(doc.schemaVersion)}; this pgperf reads schemaVersion ${RESULTS_SCHEMA_VERSION}`,
    );
  }
  if (!Array.isArray(doc.arms) || !doc.arms.every((a) => isObject(a) && typeof a.label === 'string')) {
    return bad('"arms" must be a list of objects with a string "label"');
  }
  if (!Array.isArray(doc.samples)) return bad('"samples" must be a list');
  doc.samples.forEach((s, i) => {
    const problem = sampleProblem(s);
    if (problem) bad(`samples[${i}] ${problem}`);
  });
  const plan = doc.plan;
  if (!isObject(plan) || !Array.isArray(plan.cells) || !plan.cells.every((c) => cellProblem(c) === null)) {
    return bad('"plan.cells" must be a list of {workload: string, clients: positive integer}');
  }
  if (doc.workloads !== undefined && !isObject(doc.workloads)) return bad('"workloads" must be an object');
  return doc as unknown as RunResult;
}

function sampleProblem(s: unknown): string | null {
  if (!isObject(s)) return 'is not an object';
  const cell = cellProblem(s);
  if (cell) return cell;
  if (typeof s.arm !== 'string') return `has arm ${JSON.stringify(s.arm)}; expected a string`;
  if (!Number.isInteger(s.round)) return `has round ${JSON.stringify(s.round)}; expected an integer`;
  if (s.status !== 'ok' && s.status !== 'failed')
    return `has status ${JSON.stringify(s.status)}; expected "ok" or "failed"`;
  if (!isObject(s.metrics)) return 'has no "metrics" object';
  if (s.attempt !== undefined && !Number.isInteger(s.attempt))
    return `has attempt ${JSON.stringify(s.attempt)}; expected an integer`;
  return null;
}

function cellProblem(c: unknown): string | null {
  if (!isObject(c)) return 'is not an object';
  if (typeof c.workload !== 'string') return `has workload ${JSON.stringify(c.workload)}; expected a string`;
  if (!Number.isInteger(c.clients) || (c.clients as number) < 1) {
    return `has clients ${JSON.stringify(c.clients)}; expected a positive integer`;
  }
  return null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
