/**
 * The commits a comparison measures as chosen, and how the log says them: a commitfest entry's (head its
 * cfbot branch, base the merge-base chosen when base is built), whatever the event (a schedule has no pull
 * request to take them from).
 */
import { commitfestRefs } from '../../postgres/builds/commitfest.js';
import type { CommitfestEntry } from '../../core/results/types.js';

/** One commit of a comparison: its ref and/or sha, and how it was chosen (said in the report). */
export interface CommitChoice {
  label: 'base' | 'head';
  ref?: string;
  sha?: string;
  /** How the commit was chosen, said in the report. */
  chosenBy: string;
}

/** The commits of `entry`: head its branch, base the merge-base with `baseRef` (default master). */
export function commitfestCommits(
  entry: CommitfestEntry,
  baseRef: string | undefined,
): { base: CommitChoice; head: CommitChoice } {
  const refs = commitfestRefs(entry, baseRef);
  return {
    base: { label: 'base', ref: refs.baseRef, chosenBy: `merge-base of ${refs.baseRef} and ${refs.headRef}` },
    head: { label: 'head', ref: refs.headRef, chosenBy: `commitfest entry ${entry.id}` },
  };
}

/** "master @ 0123456789ab (input base-ref)": the commit as the log names it. */
export function describeCommit(c: Omit<CommitChoice, 'label'>): string {
  return [c.ref, c.sha?.slice(0, 12)].filter(Boolean).join(' @ ') + ` (${c.chosenBy})`;
}
