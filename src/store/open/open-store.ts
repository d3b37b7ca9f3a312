/**
 * Chooses the store backend from one string (`--store`, `PGPERF_STORE`, the Action's `store` input):
 * nothing -> the default directory, a postgresql:// or postgres:// URL -> PostgreSQL, anything else ->
 * a directory path. Adapters read the environment and pass it in; this module never reads process.env.
 */
import path from 'node:path';
import { UserError } from '../../core/util/errors.js';
import { DirStore } from '../dir/dir-store.js';
import { maskUrl } from '../mask-url.js';
import type { ResultStore } from '../store.js';

export interface OpenStoreOptions {
  /** The user's home directory (for the default store). */
  home: string;
  /** `XDG_DATA_HOME` when set (for the default store). */
  xdgDataHome?: string;
  /** Reports what is skipped (a corrupt run file) and retried (a dropped connection). */
  warn: (message: string) => void;
  /** Reports what the store did on its own (a schema migration applied). */
  info?: (message: string) => void;
  /** The caller will save: create the directory / check access now, before any work is done. */
  write?: boolean;
  /** Where the spec came from, said first in an error about a directory store ("--store", "input 'store'"). */
  what?: string;
}

/** `$XDG_DATA_HOME/pgperf/store`, else `~/.local/share/pgperf/store`. */
export function defaultStoreDir(home: string, xdgDataHome?: string): string {
  const base = xdgDataHome && path.isAbsolute(xdgDataHome) ? xdgDataHome : path.join(home, '.local', 'share');
  return path.join(base, 'pgperf', 'store');
}

/** Whether a store spec names a PostgreSQL database rather than a directory. */
export function isPostgresUrl(spec: string): boolean {
  return /^postgres(ql)?:\/\//i.test(spec.trim());
}

export async function openStore(spec: string | undefined, opts: OpenStoreOptions): Promise<ResultStore> {
  const value = spec?.trim();
  if (!value) {
    return DirStore.open(defaultStoreDir(opts.home, opts.xdgDataHome), {
      ...opts,
      what: 'the default store (--store to choose another)',
    });
  }
  if (isPostgresUrl(value)) {
    // Loaded only when used, so the directory store (and the CLI's startup) does not load pg.
    const { PgStore } = await import('../postgres/pg-store.js');
    return PgStore.connect(value, { warn: opts.warn, info: opts.info });
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    throw new UserError(
      `store '${maskUrl(value)}' is not supported: expected a directory or a postgresql:// URL`,
    );
  }
  return DirStore.open(value, opts);
}

export { maskUrl };
