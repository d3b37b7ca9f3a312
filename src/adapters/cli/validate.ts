/**
 * Checks of `pgperf run` flags that need the file system, made before anything starts (no server, no
 * temp dir, no results directory yet). Each error names the flag, the bad value and what is expected.
 */
import { stat } from 'node:fs/promises';
import { UserError } from '../../core/util/errors.js';

/** --tmp-dir must be an existing directory (pgperf creates its private directories inside it). */
export async function checkTmpDir(dir: string | undefined): Promise<void> {
  if (dir === undefined) return;
  const st = await stat(dir).catch(() => undefined);
  if (!st)
    throw new UserError(`--tmp-dir ${dir}: no such directory; create it or choose another (e.g. /tmp)`);
  if (!st.isDirectory())
    throw new UserError(`--tmp-dir ${dir}: not a directory; expected a directory (e.g. /tmp)`);
}

/** --out must be a directory or not exist yet (it is created); an existing file is refused. */
export async function checkOutDir(dir: string): Promise<void> {
  const st = await stat(dir).catch(() => undefined);
  if (st && !st.isDirectory()) {
    throw new UserError(`--out ${dir}: is a file; expected a directory for the results (created if missing)`);
  }
}

/** Comparing needs two arms or more; one arm is refused (it would compare nothing). */
export function checkArmCount(count: number): void {
  if (count === 1) {
    throw new UserError(
      '--arm given once: a comparison needs two or more arms (e.g. --arm base=/usr/lib/postgresql/15/bin --arm head=/opt/pg/bin)',
    );
  }
}

/** --set ARM:... must name an arm, so that no setting is recorded but never applied. */
export function checkSetArms(sets: Array<{ arm: string; name: string }>, labels: string[]): void {
  for (const s of sets) {
    if (!labels.includes(s.arm)) {
      throw new UserError(
        `--set ${s.arm}:${s.name}: no arm is labelled "${s.arm}" (arms: ${labels.join(', ') || 'none'})`,
      );
    }
  }
}
