/**
 * What an arm was (or will be) measured under, as far as it decides whether samples measured on another
 * day compare: read from a results document for a stored or measured arm, or gathered before anything runs
 * for head (the machine now, the client's version, the controls and workloads as the run will apply them).
 * condition-differences.ts compares two of them.
 */
import { createDriver } from '../../../drivers/registry.js';
import { workloadScriptHashes } from '../../../drivers/workload-scripts.js';
import type { Workload } from '../../../drivers/workload.js';
import { captureEnvironment } from '../../../machine/environment.js';
import { runnerAs } from '../../../machine/os/process.js';
import { resolveRunAs } from '../../../postgres/cluster/run-as.js';
import { environmentFingerprint, type FingerprintSource } from '../../../machine/fingerprint.js';
import {
  cellId,
  type ArmInfo,
  type ClientInfo,
  type Environment,
  type RunResult,
} from '../../../core/results/result-types.js';
import type { ArmSpec } from '../../../run/run-loop.js';
import { memoryLogger } from '../../../core/util/logger.js';
import type { PipelineDeps, PipelineRequest } from '../pipeline/pipeline.js';

/**
 * What one arm was (or will be) measured under, as far as it decides whether its samples compare with
 * another arm's measured on another day.
 */
export interface ArmConditions {
  /**
   * The environment fingerprint's facts for this arm alone: machine, this arm's build, the client tools,
   * the controls. Not the run's settingsHash: it hashes the postgresql.conf of every arm of a run under
   * its label, so a stored run and this job's arms never share it; settings are compared by name.
   */
  facts: Record<string, string>;
  /** Workload definitions by name, as run (duration and warm-up overrides applied). */
  workloads: Record<string, unknown>;
  /**
   * The hash of each workload's script texts (`workloadScripts`), where known: the definitions name the
   * files, and a file edited under its name measures something else.
   */
  scripts: Record<string, string>;
  /** The arm's own settings (--set), applied after the workload's. */
  armSettings: Record<string, string>;
  /** Cells (cellId): for a measured arm those with an ok sample; for head before measuring, those requested. */
  cells: string[];
}

/** The conditions of an arm of a results document (a stored run, or what this job measured). */
export function conditionsOfArm(doc: RunResult, arm: ArmInfo): ArmConditions {
  const ok = doc.samples.filter((s) => s.arm === arm.label && s.status === 'ok');
  return {
    facts: armFacts({ environment: doc.environment, clients: doc.clients, arms: [arm] }),
    workloads: doc.workloads,
    scripts: doc.workloadScripts ?? {},
    armSettings: arm.settingOverrides,
    cells: [...new Set(ok.map(cellId))],
  };
}

/**
 * head's conditions before anything runs: the machine read now, the client that will drive it (its
 * version asked now, as the run-as user when pgperf is root), the controls requested, the workloads with
 * the run's overrides.
 */
export async function headConditions(
  req: Pick<PipelineRequest, 'workloads' | 'durationS' | 'controls' | 'runAs'>,
  head: ArmSpec,
  clientBinDir: string,
  deps: PipelineDeps,
): Promise<ArmConditions> {
  const workloads = req.workloads.map((w) => asRun(w, req.durationS));
  const environment: Environment = {
    ...(await captureEnvironment('')),
    ...plannedControls(req.controls),
  };
  const clients: ClientInfo[] = [];
  // The client (head's pgbench, by default) runs as the run-as user when pgperf is root, as in the run.
  const runAs = await resolveRunAs(req.runAs, deps);
  const runner = runAs ? runnerAs(deps.runner, runAs) : deps.runner;
  for (const w of workloads) {
    if (clients.some((c) => c.tool === w.tool)) continue;
    // Only asked for its version; the run loop says anything worth saying about the client itself.
    const driverDeps = {
      clientBinDir,
      cpuCount: 1,
      runner,
      logger: memoryLogger(),
      ...(runAs ? { clientUser: runAs } : {}),
      ...(deps.signal ? { signal: deps.signal } : {}),
    };
    clients.push(await createDriver(w, { ...driverDeps, searchPath: deps.searchPath ?? '' }).client());
  }
  return {
    facts: armFacts({ environment, clients, arms: [head] }),
    workloads: Object.fromEntries(workloads.map((w) => [w.name, w])),
    scripts: await workloadScriptHashes(workloads),
    armSettings: head.settings,
    cells: workloads.flatMap((w) => w.clients.map((clients) => cellId({ workload: w.name, clients }))),
  };
}

/** A workload as the run loop runs it (run-loop.ts applyOverrides; rounds aside: they are not compared). */
function asRun(w: Workload, durationS: number | undefined): Workload {
  const duration = durationS ?? w.duration;
  return { ...w, duration, warmup: Math.min(w.warmup, duration) };
}

/** The controls as the run loop will record them (src/machine/controls.ts): the fingerprint reads `control=to`. */
function plannedControls(c: PipelineRequest['controls']): Pick<Environment, 'controls'> {
  const changes: NonNullable<Environment['controls']> = [
    ...(c?.governor !== undefined ? [{ control: 'governor' as const, file: '', to: c.governor }] : []),
    ...(c?.cpuDmaLatencyUs !== undefined
      ? [{ control: 'cpuDmaLatency' as const, file: '', to: `${c.cpuDmaLatencyUs} µs` }]
      : []),
  ];
  return changes.length > 0 ? { controls: changes } : {};
}

function armFacts(source: FingerprintSource): Record<string, string> {
  const { settingsHash: _runLevel, ...facts } = environmentFingerprint(source).facts;
  return facts;
}
