/** The build stage: base and head built from source (head with its patches) become the arms "base" and "head". */
import type { BuildDeps } from '../build/build-record.js';
import { buildComparison, type ComparisonRequest } from '../build/build-pair.js';
import type { ArmSpec } from '../runner/run-loop.js';

export async function buildArms(request: ComparisonRequest, deps: BuildDeps): Promise<ArmSpec[]> {
  const built = await buildComparison(request, deps);
  return [
    { label: 'base', binDir: built.base.binDir, settings: {}, build: { ...built.base.record } },
    { label: 'head', binDir: built.head.binDir, settings: {}, build: { ...built.head.record } },
  ];
}
