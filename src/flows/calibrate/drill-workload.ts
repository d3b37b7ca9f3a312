/**
 * A calibration's injected drill as a workload (docs/statistics.md, "What the gate's errors are on this
 * runner"): a pgbench workload's own script with one statement added at the end of every transaction,
 * `SELECT sum(i) FROM generate_series(1, N * current_setting('pgperf.drill')::int)`. Both arms run the same
 * script; base's server has `pgperf.drill = 0` (it sums no row), head's `pgperf.drill = 1` (N rows). So the
 * arms differ by N rows of CPU work per transaction and nothing else: no rebuild, no sleep, a cost the probe
 * sizes (drill-size.ts). Only pgbench workloads get a drill (a sysbench script is Lua, not SQL).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readRegularFile } from '../../machine/os/regular-file.js';
import { pipelinedSelectScript } from '../../drivers/pgbench/pgbench-command.js';
import type { PgbenchWorkload } from '../../drivers/pgbench/pgbench-workload.js';
import { BUILTIN_SCRIPT_TEXT } from '../../drivers/pgbench/statements.js';
import type { Workload } from '../../drivers/workload.js';

/** The server setting (a placeholder, any PostgreSQL takes it) that switches the drill's cost on in head. */
export const DRILL_SETTING = 'pgperf.drill';
/** The suffix of a drill workload's name: select-only -> select-only-drill. */
export const DRILL_SUFFIX = '-drill';

/** The arms of a drill run: the same install, the drill's cost off in base and on in head. */
export function drillArms(binDir: string) {
  return [
    { label: 'base', binDir, settings: { [DRILL_SETTING]: '0' } },
    { label: 'drill', binDir, settings: { [DRILL_SETTING]: '1' } },
  ];
}

/** The statement a drill adds to every transaction: `rows` rows summed in head, none in base. */
export function drillStatement(rows: number): string {
  return `SELECT sum(i) FROM generate_series(1, ${rows} * current_setting('${DRILL_SETTING}')::int) AS drill(i);`;
}

/** A script with the drill's statement as its last command. */
export function withDrill(script: string, rows: number): string {
  const text = script.endsWith('\n') || script === '' ? script : `${script}\n`;
  return `${text}${drillStatement(rows)}\n`;
}

/** Why a workload gets no drill, or undefined when it can. */
export function undrillable(w: Workload): string | undefined {
  return w.tool === 'pgbench'
    ? undefined
    : `${w.name}: not drilled (${w.tool}: the drill adds a SQL statement to a pgbench script)`;
}

/**
 * The drill variant of a pgbench workload, its scripts written to `dir`: named NAME-drill, the workload's
 * script(s) (a builtin's text, its pipelined select-only, or its own files) each with the drill's statement
 * of `rows` rows, the same weights, and no counted phases (instructions, plans): the drill is timed.
 */
export async function drillWorkload(w: PgbenchWorkload, rows: number, dir: string): Promise<PgbenchWorkload> {
  const texts: Array<{ name: string; text: string; weight: number }> =
    w.pipeline !== undefined
      ? [{ name: 'select-only-pipeline', text: pipelinedSelectScript(w.pipeline), weight: 1 }]
      : w.builtin
        ? [{ name: w.builtin, text: BUILTIN_SCRIPT_TEXT[w.builtin], weight: 1 }]
        : await Promise.all(
            (w.scripts ?? []).map(async (s) => ({
              name: path.basename(s.file, '.sql'),
              text: await readRegularFile(s.file),
              weight: s.weight,
            })),
          );
  const name = `${w.name}${DRILL_SUFFIX}`;
  const scripts = [];
  for (const [i, t] of texts.entries()) {
    const file = path.join(dir, `${name}-${i + 1}-${t.name}.sql`);
    await writeFile(file, withDrill(t.text, rows), { mode: 0o644 });
    scripts.push({ file, weight: t.weight });
  }
  const { builtin: _b, pipeline: _p, ...rest } = w;
  return { ...rest, name, scripts, instructions: undefined, plans: undefined };
}
