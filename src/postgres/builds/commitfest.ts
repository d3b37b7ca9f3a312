/**
 * Commitfest entries as heads. PostgreSQL takes no pull requests: a patch is a commitfest entry, and cfbot
 * applies each entry's latest patch set to master and pushes it to the branch `cf/<id>` of its GitHub
 * mirror. An entry is built as head from that branch, against its merge-base with master (or with another
 * base ref) as base, and its id is recorded in the results (`source.commitfest`).
 */
import { UserError } from '../../core/util/errors.js';
import type { CommitfestEntry } from '../../core/results/result-types.js';

/** cfbot's mirror of PostgreSQL, whose `cf/<id>` branches are the entries' latest patch sets. */
export const CFBOT_REPO = 'https://github.com/postgresql-cfbot/postgresql.git';

/** The branch an entry's base is the merge-base with, unless another is given. */
export const CF_DEFAULT_BASE = 'master';

/** What a commitfest entry builds: head `cf/<id>`, base the merge-base of `baseRef` and it. */
export interface CommitfestRefs {
  entry: CommitfestEntry;
  baseRef: string;
  headRef: string;
  /** Always: the entry's base is where its branch left `baseRef`, not `baseRef`'s tip. */
  mergeBase: true;
}

/**
 * The entry `id` as given by a flag or an input (`what` names it in the refusal): a positive integer.
 * @throws UserError naming `what`, the value and the expected form.
 * @example commitfestEntryOf('4711', '--cf') // { id: 4711, branch: 'cf/4711' }
 */
export function commitfestEntryOf(id: string, what: string): CommitfestEntry {
  const text = id.trim();
  if (!/^[1-9][0-9]{0,8}$/.test(text)) {
    throw new UserError(
      `${what} must be a commitfest entry id (a positive integer, as in https://commitfest.postgresql.org/patch/4711/), got '${id}'`,
    );
  }
  const n = Number(text);
  return { id: n, branch: `cf/${n}` };
}

/** The refs to build for `entry`: head its cfbot branch, base its merge-base with `baseRef` (default master). */
export function commitfestRefs(entry: CommitfestEntry, baseRef?: string): CommitfestRefs {
  return { entry, baseRef: baseRef ?? CF_DEFAULT_BASE, headRef: entry.branch, mergeBase: true };
}
