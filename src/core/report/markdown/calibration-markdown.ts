/** A calibration as the Action's job summary shows it. */
import type { Calibration } from '../../compare/calibration-types.js';
import type { CalibrationRecord } from '../../results/calibration-record.js';
import { renderCalibrationText } from '../terminal/calibration-text.js';

/** The job summary's section: the text of renderCalibrationText as a code block. */
export function renderCalibrationMarkdown(
  c: Calibration,
  record?: CalibrationRecord,
  skipped: readonly string[] = [],
): string {
  return `## pgperf calibrate\n\n\`\`\`\n${renderCalibrationText(c, record, skipped)}\`\`\`\n`;
}
