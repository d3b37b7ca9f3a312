/**
 * The build stage: base and head built from source (head with its patches) become the arms "base" and
 * "head" (only "head" when the request builds head only).
 */
import type { BuildDeps, BuiltInstall } from '../../../postgres/builds/build-record.js';
import {
  buildComparison,
  buildHeadOnly,
  type ComparisonRequest,
} from '../../../postgres/builds/build-pair.js';
import type { ArmSpec } from '../../../run/run-loop.js';

export async function buildArms(request: ComparisonRequest, deps: BuildDeps): Promise<ArmSpec[]> {
  const arm = (label: string, built: BuiltInstall): ArmSpec => ({
    label,
    binDir: built.binDir,
    settings: {},
    build: { ...built.record },
  });
  if (request.headOnly) return [arm('head', await buildHeadOnly(request, deps))];
  const built = await buildComparison(request, deps);
  return [arm('base', built.base), arm('head', built.head)];
}
