/**
 * The gate record a comparison states, read once for every kind of comparison (same job, stored baseline,
 * two results files): the runner's stored calibrations (runner-gate-record.ts) of the comparison's cells,
 * said in the log either way. A store that cannot be read, or a read that fails, gives none; a failing read
 * is warned about, never fatal.
 */
import type { CellKey } from '../../../core/results/result-types.js';
import type { RunnerGateRecord } from '../../../core/results/calibration-record.js';
import { gateRecordText } from '../../../core/report/evidence/gate-record-line.js';
import { errorMessage } from '../../../core/util/errors.js';
import type { Logger } from '../../../core/util/logger.js';
import { loadGateRecord } from './runner-gate-record.js';
import type { NoiseStore } from './runner-noise.js';

/** What reading a gate record needs of a store; one without `list` and `load` (write-only) has none. */
export type GateRecordStore = Partial<NoiseStore> & { description?: string };

/**
 * The runner's gate record for `cells`, or undefined (no readable store, no recorded calibration, a failed
 * read). Logs the record's line, or the hint to calibrate.
 *
 * @example await readGateRecord(store, runnerId(env), [{ workload: 'ro', clients: 1 }], logger)
 */
export async function readGateRecord(
  store: GateRecordStore | undefined,
  runner: string,
  cells: readonly CellKey[],
  logger: Logger,
): Promise<RunnerGateRecord | undefined> {
  if (!store?.list || !store.load) return undefined;
  try {
    const record = await loadGateRecord(
      { list: store.list.bind(store), load: store.load.bind(store) },
      runner,
      cells,
    );
    logger.info(
      record
        ? gateRecordText(record)
        : "this runner's false alarms and catch rate are not known: run pgperf calibrate with the store",
    );
    return record;
  } catch (e) {
    logger.warn(
      `could not read this runner's calibrations from ${store.description ?? 'the store'}: ${errorMessage(e)}`,
    );
    return undefined;
  }
}
