/**
 * The folder import rule (scripts/layers.mjs, enforced by eslint.config.js): a forbidden import is an
 * error naming the rule, at either depth; an allowed one passes; the source tree itself keeps the rule.
 */
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
const eslint = new ESLint({ cwd: root });

async function importErrors(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${source}\nexport const probe = 1;\n`, {
    filePath: path.join(root, file),
  });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('folder import rule', () => {
  it('refuses an import of a higher layer, naming what the folder may import', async () => {
    const errors = await importErrors('src/stats/probe.ts', "import '../cluster/cluster.js';");
    expect(errors).toEqual([expect.stringContaining('src/stats may import only no other folder of src')]);
  });

  it('refuses it from a nested folder too, and type imports as well', async () => {
    const errors = await importErrors(
      'src/drivers/pgbench/probe.ts',
      "import type { RunComparison } from '../../compare/types.js';",
    );
    expect(errors).toEqual([expect.stringContaining('src/drivers may import only cluster, config')]);
  });

  it('allows what the layer allows and the folder itself', async () => {
    expect(
      await importErrors(
        'src/compare/probe.ts',
        "import '../stats/holm.js';\nimport '../results/types.js';\nimport './types.js';",
      ),
    ).toEqual([]);
  });

  it('holds for every file of src/', async () => {
    const results = await eslint.lintFiles(['src/**/*.ts']);
    const broken = results.flatMap((r) =>
      r.messages
        .filter((m) => m.ruleId === 'no-restricted-imports')
        .map((m) => `${path.relative(root, r.filePath)}:${m.line} ${m.message}`),
    );
    expect(broken).toEqual([]);
  });
});
