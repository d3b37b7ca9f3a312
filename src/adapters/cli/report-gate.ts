/**
 * The CLI's side of a flow's decision (nightly, bisect, calibrate): its line, verdict first, on stderr
 * beside the flow's own report, then the failure when the gate fails. The exit code is the decision's.
 */
import type { GateDecision } from '../../core/compare/decision/flow-decision.js';
import { decisionLine } from '../../core/report/terminal/comparison-text.js';
import type { Logger } from '../../core/util/logger.js';

export function reportGate(decision: GateDecision, logger: Logger): void {
  logger.info(`${decision.flow}: ${decisionLine(decision)}`);
  if (decision.failure !== undefined) logger.error(decision.failure);
}
