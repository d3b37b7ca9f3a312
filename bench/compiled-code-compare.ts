/**
 * Compiled-code comparison speed: head's install against base's as the pipeline compares them before
 * measuring (src/postgres/builds/compiled-code.ts), with the server's functions told apart by disassembly,
 * and the same again byte for byte (no objdump) for the counts it replaces. Run on demand, on two installs
 * of PostgreSQL (e.g. two slots of a build cache; prefixes of one length, as the cache's are).
 *
 *   npx tsx bench/compiled-code-compare.ts BASE_INSTALL HEAD_INSTALL [--rounds N]
 *
 * An install is its prefix (the directory holding bin/) or its bin directory. Target on a 2-core machine:
 * well under 20 s for PostgreSQL 18's bin/postgres (~10 MB, ~19,000 functions).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { describeCodeDifference } from '../src/core/compare/analysis/same-code.js';
import { memoryLogger } from '../src/core/util/logger.js';
import { nodeProcessRunner } from '../src/machine/os/process.js';
import { compareCompiledCode } from '../src/postgres/builds/compiled-code.js';
import { resolveRunAs } from '../src/postgres/cluster/run-as.js';

const TARGET_S = 20;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '1' } },
});
if (positionals.length !== 2) {
  console.error('usage: npx tsx bench/compiled-code-compare.ts BASE_INSTALL HEAD_INSTALL [--rounds N]');
  process.exit(2);
}
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error(`--rounds must be a positive integer, got '${values.rounds}'`);
  process.exit(2);
}

/** The bin directory of an install given as its prefix or its bin directory. */
function binDir(dir: string): string {
  const resolved = path.resolve(dir);
  return existsSync(path.join(resolved, 'bin', 'postgres')) ? path.join(resolved, 'bin') : resolved;
}
const base = { label: 'base', binDir: binDir(positionals[0]!) };
const head = { label: 'head', binDir: binDir(positionals[1]!) };
// As root, objdump runs as the run-as user, as the pipeline runs it.
const runAs = await resolveRunAs(undefined, { runner: nodeProcessRunner, logger: memoryLogger() });
const install = { runner: nodeProcessRunner, runAs };

for (const [label, objdump] of [
  ['disassembly', undefined],
  ['bytes', '/nonexistent/objdump'],
] as const) {
  for (let round = 1; round <= rounds; round++) {
    const t0 = process.hrtime.bigint();
    const code = await compareCompiledCode(base, head, { install, ...(objdump ? { objdump } : {}) });
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    const f = code.serverFunctions;
    console.log(
      `${label} #${round}: ${s.toFixed(2)} s${label === 'disassembly' && s > TARGET_S ? ` (over the ${TARGET_S} s target)` : ''}`,
    );
    if (round > 1) continue;
    console.log(
      `  files ${code.differingCount} of ${code.files} differ; functions: ${f ? `changed ${f.changedCount} (immediates only ${f.immediatesOnlyCount ?? '-'}), moved only ${f.movedOnlyCount ?? '-'}, total ${f.total}, method ${f.method}${f.note ? ` (${f.note})` : ''}` : 'not compared'}`,
    );
    console.log(`  ${describeCodeDifference(code)}`);
  }
}
