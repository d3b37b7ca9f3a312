/**
 * The results store as the CLI chooses it: `--store DIR|URL`, else $PGPERF_STORE, else the default directory
 * (~/.local/share/pgperf/store). The only place the CLI reads PGPERF_STORE.
 */
import os from 'node:os';
import { openStore } from '../../store/open/open-store.js';
import type { ResultStore } from '../../store/store.js';
import type { Logger } from '../../core/util/logger.js';

export const STORE_OPTION_HELP =
  'results store: a directory or postgresql://USER:PASSWORD@HOST/DB (default: $PGPERF_STORE, else ~/.local/share/pgperf/store)';

export function openCliStore(flag: string | undefined, logger: Logger, write: boolean): Promise<ResultStore> {
  const what = flag !== undefined ? '--store' : process.env.PGPERF_STORE?.trim() ? 'PGPERF_STORE' : undefined;
  return openStore(flag ?? process.env.PGPERF_STORE, {
    ...(what ? { what } : {}),
    home: os.homedir(),
    xdgDataHome: process.env.XDG_DATA_HOME,
    warn: (m) => logger.warn(m),
    info: (m) => logger.info(m),
    write,
  });
}
