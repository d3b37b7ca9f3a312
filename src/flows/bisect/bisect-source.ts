/**
 * The job of the Action's mode bisect: what to bisect and where it came from. A labeled regression issue
 * makes one from its marker (issue-bisection.ts); any other event from the inputs base-ref (good),
 * head-ref (bad), one workload and clients (here). The workloads are the adapter's to find and load.
 */
import { UserError } from '../../core/util/errors.js';
import type { MetricName } from '../../core/results/metrics.js';
import type { Workload } from '../../drivers/workload.js';
import type { BisectTarget } from '../../core/history/bisect-marker.js';
import { BISECT_LABEL } from '../nightly/regression-issues.js';
import type { BisectRange } from './bisect-request.js';
import type { RangeNames } from './commit-range.js';
import { oneCell } from './one-cell.js';

/** What to bisect, and where it came from. */
export interface BisectJob extends BisectRange {
  names: RangeNames;
  metric?: MetricName;
  /** The regression issue to comment on (issue trigger only). */
  issue?: number;
  /** The issue's marker, checked against the store before anything is built (issue trigger only). */
  target?: BisectTarget;
  /** How the job was chosen, for the log and the summary. */
  basis: string;
}

/** The workloads of the input 'workloads', as the adapter finds them. */
export interface JobWorkloads {
  /** The entries of the input, as given (none: the default). */
  given: readonly string[];
  /** The given workloads, loaded. */
  load(): Promise<Workload[]>;
  /** The file of one workload name: a file in the workspace, else a shipped one (throws when neither). */
  fileOf(name: string): string;
}

/** What a job is chosen from: the event and the inputs, as plain values. */
export interface JobRequest {
  /** The workflow's event: 'issues' bisects the labeled issue (issue-bisection.ts), any other the inputs. */
  eventName: string;
  /** The issue of an issues event, as its payload gives it (untrusted until issue-bisection.ts checks it). */
  issue?: unknown;
  /** The inputs base-ref (good) and head-ref (bad). */
  good?: string;
  bad?: string;
  /** The input 'clients'. */
  clients?: number;
  workloads: JobWorkloads;
}

/** The job of the inputs: good, bad, the one workload at its one client count. */
export async function rangeBisectJob(inputs: JobRequest): Promise<BisectJob> {
  const { workloads } = inputs;
  if (!inputs.good || !inputs.bad) {
    throw new UserError(
      `mode bisect on a '${inputs.eventName || 'workflow'}' event needs the commits: set 'base-ref' (a good commit) and 'head-ref' (a bad one, with base-ref in its history); or label a regression issue '${BISECT_LABEL}' to bisect its commits`,
    );
  }
  if (workloads.given.length !== 1) {
    throw new UserError(
      `mode bisect measures one workload: set 'workloads' to exactly one workload (a shipped name or a file), got ${workloads.given.length === 0 ? 'none' : workloads.given.join(', ')}`,
    );
  }
  const [workload] = await workloads.load();
  return {
    good: inputs.good,
    bad: inputs.bad,
    names: { good: "input 'base-ref'", bad: "input 'head-ref'" },
    workload: oneCell(workload!, inputs.clients, "input 'clients'"),
    basis: `inputs base-ref ${inputs.good} (good), head-ref ${inputs.bad} (bad), workload ${workload!.name}`,
  };
}
