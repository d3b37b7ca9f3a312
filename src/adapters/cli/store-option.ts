/**
 * The results store as the CLI chooses it: `--store DIR|URL`, else $PGPERF_STORE, else the default directory
 * (~/.local/share/pgperf/store), through the one chooser (src/store/open/choose-store.ts). The only place the
 * CLI reads PGPERF_STORE.
 */
import os from 'node:os';
import { chooseStore } from '../../store/open/choose-store.js';
import { openStore } from '../../store/open/open-store.js';
import type { ResultStore } from '../../store/store.js';
import type { Logger } from '../../core/util/logger.js';

export const STORE_OPTION_HELP =
  'results store: a directory or postgresql://USER:PASSWORD@HOST/DB (default: $PGPERF_STORE, else ~/.local/share/pgperf/store)';

export async function openCliStore(
  flag: string | undefined,
  logger: Logger,
  write: boolean,
): Promise<ResultStore> {
  const what = flag !== undefined ? '--store' : process.env.PGPERF_STORE?.trim() ? 'PGPERF_STORE' : undefined;
  const chosen = await chooseStore(
    { spec: flag ?? process.env.PGPERF_STORE, baseDir: process.cwd(), unset: 'default', write },
    (spec, writable) =>
      openStore(spec, {
        ...(what ? { what } : {}),
        home: os.homedir(),
        xdgDataHome: process.env.XDG_DATA_HOME,
        warn: (m) => logger.warn(m),
        info: (m) => logger.info(m),
        write: writable,
      }),
  );
  return chosen.reader;
}
