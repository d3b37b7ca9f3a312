/** The build stage: base and head built from source (head with its patches) become the arms "base" and "head". */
import { buildComparison, type BuildDeps, type ComparisonRequest } from '../build/build.js';
import type { ArmSpec } from '../runner/run-loop.js';

export async function buildArms(request: ComparisonRequest, deps: BuildDeps): Promise<ArmSpec[]> {
  const built = await buildComparison(request, deps);
  return [
    { label: 'base', binDir: built.base.binDir, settings: {}, build: { ...built.base.record } },
    { label: 'head', binDir: built.head.binDir, settings: {}, build: { ...built.head.record } },
  ];
}
