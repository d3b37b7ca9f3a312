/** How the markups show a verdict: an icon, a title for headlines and a word for table cells and headings. */
import type { OverallVerdict } from '../compare/comparison-types.js';

/** Icon and wording per verdict: the headline uses `title`, table cells use `word`. */
export const VERDICT_DISPLAY: Record<OverallVerdict, { icon: string; title: string; word: string }> = {
  regression: { icon: '❌', title: 'Regression', word: 'regression' },
  improvement: { icon: '🚀', title: 'Improvement', word: 'improvement' },
  'no-change': { icon: '✅', title: 'No change', word: 'no change' },
  'not-worse': { icon: '✅', title: 'Not worse', word: 'not worse' },
  inconclusive: { icon: '❔', title: 'Inconclusive', word: 'inconclusive' },
  mixed: { icon: '⚠️', title: 'Mixed: regressions and improvements', word: 'mixed' },
};
