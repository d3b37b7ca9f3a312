/**
 * Where the run loop sends the results document: it is handed a sink, never a path it derives. A sink sees
 * the document after every measured run (so an interrupted run keeps what it measured) and once at the end.
 */
import { writeResults } from './write-results.js';
import type { RunResult } from './types.js';

export interface ResultSink {
  /** Where the document goes, for log lines ("results: ..."). */
  readonly description: string;
  /** After every measured run; cheap sinks (a file) persist it, others may ignore it. */
  update(result: RunResult): Promise<void>;
  /** Once, when the run has ended (complete, interrupted or failed). */
  finish(result: RunResult): Promise<void>;
}

/** The results file, rewritten atomically after every run and at the end. */
export function fileSink(file: string): ResultSink {
  return {
    description: file,
    update: (result) => writeResults(file, result),
    finish: (result) => writeResults(file, result),
  };
}

/** Several sinks in order; every sink is tried, and the first failure is rethrown after the others ran. */
export function combineSinks(...sinks: ResultSink[]): ResultSink {
  const each = async (fn: (s: ResultSink) => Promise<void>) => {
    const outcomes = await Promise.allSettled(sinks.map(fn));
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
  };
  return {
    description: sinks.map((s) => s.description).join(' and '),
    update: (result) => each((s) => s.update(result)),
    finish: (result) => each((s) => s.finish(result)),
  };
}
