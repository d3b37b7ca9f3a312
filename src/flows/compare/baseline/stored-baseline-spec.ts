/**
 * What a user asks of a stored baseline, parsed once by the adapters (`--baseline`, the Action's `baseline`
 * input) and handed to the flow: where the base comes from, which stored run may serve, how a refusal
 * spells the adapter's knobs, and the sentinel's rounds.
 */
import { UserError } from '../../../core/util/errors.js';
import type { ResultStore } from '../../../store/store.js';

/** Where the base comes from: measured in this job (the default), or stored samples of an earlier run. */
export type BaselineSpec = { kind: 'same-job' } | { kind: 'stored'; ref?: string };

/** Parses `same-job`, `stored` or `stored:REF`; `name` is the flag or input, for the error. */
export function parseBaselineSpec(value: string, name: string): BaselineSpec {
  const v = value.trim();
  if (v === 'same-job') return { kind: 'same-job' };
  if (v === 'stored') return { kind: 'stored' };
  if (v.startsWith('stored:') && v.length > 'stored:'.length)
    return { kind: 'stored', ref: v.slice(7).trim() };
  throw new UserError(
    `${name} '${value}' is not a baseline; expected same-job, stored (the newest stored run) or stored:REF (a sha prefix or a ref name)`,
  );
}

export interface StoredBaselineOptions {
  /** A sha prefix or ref name the stored run's head (or only) arm must match; default: the newest run. */
  ref?: string;
  /** The store the baseline is read from (the merged run is saved to the archive runStoredBaseline is given). */
  store: Pick<ResultStore, 'list' | 'load' | 'description'>;
  /**
   * Compare even when no stored run was measured under head's conditions (facts, settings, workload
   * fields; not cells it has no samples of): the newest serves and the report says what differs.
   */
  allowFingerprintMismatch: boolean;
  /** Rounds of the drift sentinel (0: none). */
  sentinelRounds: number;
  onDrift: 'refuse' | 'inconclusive';
  /** "now", for the baseline's age (tests). */
  now?: () => Date;
  /**
   * How the adapter spells the knobs a refusal suggests (default: the CLI's flags); a knob the adapter
   * lacks is left out of the advice.
   */
  names?: StoredBaselineNames;
}

export interface StoredBaselineNames {
  baseline: string;
  allowMismatch?: string;
  /** e.g. (arm, name, value) => `--set ${arm}:${name}=${value}`. */
  set?: (arm: string, name: string, value: string) => string;
  clientBin?: string;
  duration?: string;
}

export const CLI_STORED_BASELINE_NAMES: StoredBaselineNames = {
  baseline: '--baseline',
  allowMismatch: '--allow-fingerprint-mismatch',
  set: (arm, name, value) => `--set ${arm}:${name}=${value}`,
  clientBin: '--client-bin',
  duration: '--duration',
};

export const DEFAULT_SENTINEL_ROUNDS = 3;
