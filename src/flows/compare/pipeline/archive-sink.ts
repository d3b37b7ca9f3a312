/**
 * The results store as a sink of the run loop: the finished run is saved when the loop finishes it, and
 * saved again (the same run id: the store replaces it) once the pipeline knows what the answer cost, so
 * the store's copy, which the history site plots, records it too. A run decided without timed rounds (same
 * compiled code, changed code not executed, the counts decide) is an answer too, and cheap: it is kept with
 * its decision and cost, though it has no sample (its readers pass it over for baselines and noise). Only a
 * run that measured nothing it was meant to (stopped before its first sample) is not. A store failure is
 * kept (and reported), never fatal to the run.
 */
import { errorMessage } from '../../../core/util/errors.js';
import type { RunResult } from '../../../core/results/result-types.js';
import type { ResultSink } from '../../../run/sink.js';

/** What the sink needs of a store: its description (credentials masked) and save, which replaces by run id. */
export interface ArchiveTarget {
  readonly description: string;
  save(result: RunResult): Promise<{ id: string }>;
}

export interface ArchiveSink {
  sink: ResultSink;
  /** The run as saved; absent until saved (nothing measured: see worthKeeping; or the store failed). */
  saved?: { id: string };
  /** Why the store did not take the run (or its amendment). */
  error?: string;
  /** Saves the run again with what only the pipeline adds (its cost); nothing when it was never saved. */
  amend(result: RunResult): Promise<void>;
}

export function archiveSink(store: ArchiveTarget): ArchiveSink {
  const save = async (result: RunResult, what: string): Promise<void> => {
    try {
      state.saved = await store.save(result);
    } catch (e) {
      state.error = `could not save ${what} to ${store.description}: ${errorMessage(e)}`;
    }
  };
  const state: ArchiveSink = {
    sink: {
      description: `the store ${store.description}`,
      update: async () => {},
      finish: async (result) => {
        if (!worthKeeping(result)) return;
        await save(result, 'the run');
      },
    },
    amend: async (result) => {
      if (state.saved)
        await save(result, `what the answer cost (the run is saved as ${state.saved.id} without it)`);
    },
  };
  return state;
}

/**
 * Whether the store keeps a finished run: one with samples, or one decided without timed rounds (plan.rounds
 * 0, complete). A run whose rounds were planned and that stopped before its first sample answered nothing.
 */
export function worthKeeping(result: Pick<RunResult, 'samples' | 'plan' | 'status'>): boolean {
  return result.samples.length > 0 || (result.plan.rounds === 0 && result.status === 'complete');
}
