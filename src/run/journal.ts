/**
 * The results document as a run writes it: saved through the sink after every measured run, warnings kept
 * in it as well as logged, and finished once however the run ends, so that an interrupted or failing run
 * keeps everything it measured.
 */
import type { RunResult } from '../core/results/result-types.js';
import { errorMessage } from '../core/util/errors.js';
import type { Logger } from '../core/util/logger.js';
import { FileWriteError } from '../machine/os/atomic-write.js';
import { sealingSink } from './shard-digest.js';
import { finishOnForcedExit, type ResultSink } from './sink.js';
import type { ShardInfo } from './shards.js';

export interface RunJournal {
  /** The document every step adds to. */
  readonly result: RunResult;
  /** Writes the document now (sink.update); a failure is rethrown and stops the run. */
  save(): Promise<void>;
  /** A warning for people: kept in the document and logged. */
  warn(message: string): void;
  /** The sink's failure to keep the document (a full disk), as save() threw it: the run ends 'failed'. */
  isWriteFailure(e: unknown): boolean;
  /** The final write (sink.finish): a failure is logged, never thrown; the forced-exit end is dropped. */
  finish(): Promise<void>;
}

export function openJournal(
  result: RunResult,
  req: { sink: ResultSink; shard?: ShardInfo },
  deps: { logger: Logger; signal?: AbortSignal },
): RunJournal {
  const { logger } = deps;
  // A shard's document carries the digest of its samples, rewritten with every write (run/shard-digest.ts).
  const sink = req.shard ? sealingSink(req.sink) : req.sink;
  // A forced exit (a second signal, a crash) never reaches the run loop's own ending: the cleanup registry
  // then finishes the document (interrupted or failed, the reserve removed) before it stops the servers.
  const unregisterForcedEnd = finishOnForcedExit(sink, result, deps.signal);
  let writeFailure: { error: unknown } | undefined;
  return {
    result,
    async save() {
      result.updatedAt = new Date().toISOString();
      await sink.update(result).catch((e: unknown) => {
        writeFailure = { error: e };
        throw e;
      });
    },
    warn(message) {
      result.warnings.push(message);
      logger.warn(message);
    },
    isWriteFailure: (e) => writeFailure !== undefined && writeFailure.error === e,
    async finish() {
      result.updatedAt = new Date().toISOString();
      await sink
        .finish(result)
        .catch((e: unknown) =>
          logger.error(
            e instanceof FileWriteError
              ? e.message
              : `could not write ${sink.description}: ${errorMessage(e)}`,
          ),
        );
      unregisterForcedEnd();
    },
  };
}
