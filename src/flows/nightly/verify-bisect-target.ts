/**
 * A regression issue's bisect marker, checked against the results store that nightly writes before
 * anything is built. Any workflow of the repository acts as the same bot account and could open an issue
 * whose body carries pgperf's markers; only pgperf's own jobs write the store. So the marker is trusted
 * only as far as the store bears it out: its series is one the store holds, and its good and bad commits
 * are runs of that series, good measured before bad. A forged marker can at most name a range that the
 * nightly history really has. Nor one across a change of the workload's definition: the runs on either side
 * measured different things, and a bisection would blame a commit for the edit.
 */
import type { ResultStore } from '../../store/store.js';
import { UserError } from '../../core/util/errors.js';
import { loadStoredRuns } from '../history/load-runs.js';
import { buildSeries } from '../../core/history/series.js';
import { definitionSegments } from '../../core/history/definition-segments.js';
import type { BisectTarget } from '../../core/history/bisect-marker.js';

export async function verifyBisectTarget(
  target: BisectTarget,
  store: ResultStore,
  where: string,
): Promise<void> {
  const series = buildSeries(await loadStoredRuns(store, [target.workload])).find(
    (s) => s.id === target.series,
  );
  if (!series) {
    throw new UserError(
      `${where}: its series ${target.series} is not in the results store ${store.description}; only regressions that nightly measured into this store are bisected`,
    );
  }
  const indexOf = (sha: string) => series.points.findIndex((p) => p.sha !== null && p.sha.startsWith(sha));
  const good = indexOf(target.good);
  const bad = indexOf(target.bad);
  const missing = [
    ...(good < 0 ? [`good ${target.good.slice(0, 12)}`] : []),
    ...(bad < 0 ? [`bad ${target.bad.slice(0, 12)}`] : []),
  ];
  if (missing.length > 0) {
    throw new UserError(
      `${where}: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not a run of series ${target.series} in the results store ${store.description}; only commits nightly measured are bisected`,
    );
  }
  if (good >= bad) {
    throw new UserError(
      `${where}: in the results store, good ${target.good.slice(0, 12)} was not measured before bad ${target.bad.slice(0, 12)} in series ${target.series}`,
    );
  }
  const changed = definitionSegments(series.points).find((s) => s.start > good && s.start <= bad);
  if (changed) {
    throw new UserError(
      `${where}: the workload definition of series ${target.series} changed between good ${target.good.slice(0, 12)} and bad ${target.bad.slice(0, 12)} (on ${series.points[changed.start]!.date.slice(0, 10)}): the runs on either side measured different things, so no commit is to blame; nothing is bisected`,
    );
  }
}
