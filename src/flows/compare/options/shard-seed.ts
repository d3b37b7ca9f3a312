/**
 * The seed every shard of a matrix agrees on, one rule for every adapter and for the job that consolidates
 * the shards: the seed given, else the id every job of one workflow run shares, where the adapter has one
 * (the Action's GITHUB_RUN_ID) and it is a whole number.
 */

/** The id every job of one workflow run shares, as the adapter read it, and what it is called. */
export interface RunIdSeed {
  /** Said in the refusal: "GITHUB_RUN_ID". */
  name: string;
  /** Undefined when it is not set. */
  value?: string;
}

/** The seed given, else the run's id when it is a whole number; undefined when neither is. */
export function sharedSeedOf(seed: number | undefined, runId: RunIdSeed | undefined): number | undefined {
  if (seed !== undefined) return seed;
  const value = runId?.value;
  if (value === undefined || !/^[1-9]\d*$/.test(value)) return undefined;
  const id = Number(value);
  return Number.isSafeInteger(id) ? id : undefined;
}

/** Why the run's id could not stand in for a missing seed ("; GITHUB_RUN_ID is not set"), or nothing. */
export function runIdSeedProblem(runId: RunIdSeed | undefined): string {
  if (!runId) return '';
  return `; ${runId.name} is ${runId.value === undefined ? 'not set' : `'${runId.value}', not a whole number`}`;
}
