import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { UserError, errorMessage } from '../../core/util/errors.js';

import type { ChartAssets } from '../../core/report/history/page-html.js';

/**
 * Reads uPlot's IIFE build and stylesheet from the installed `uplot` package (resolved from this module,
 * so from the repository's node_modules both under tsx and from dist/).
 */
export async function loadChartAssets(): Promise<ChartAssets> {
  try {
    const require = createRequire(import.meta.url);
    const [script, css] = await Promise.all([
      readFile(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
      readFile(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
    ]);
    return { script, css };
  } catch (e) {
    throw new UserError(
      `cannot read the charting library (the uplot package): ${errorMessage(e)}; run npm ci in pgperf's directory`,
    );
  }
}
