/**
 * docs/workloads.md's "Release to release": the full-scale workload it prints is the shipped
 * release-to-release.yml at scale 1000, 100 clients and 300-second runs (and a plan that can decide), and
 * the refusal it quotes is the one pgperf prints (src/postgres/cluster/known-settings.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkloadFile, parseWorkload } from '../../../src/drivers/load-workload.js';
import { designReach } from '../../../src/flows/compare/noise/design-check.js';
import { unknownSettingProblem } from '../../../src/postgres/cluster/known-settings.js';
import { REPO_ROOT, yamlBlocks } from '../../helpers/doc-pages.js';

const PAGE = 'docs/workloads.md';
const SECTION = 'Release to release';

describe(`${PAGE}: ${SECTION}`, () => {
  it('prints the shipped workload at the full scale, a plan that can reach significance', async () => {
    const blocks = yamlBlocks(PAGE).filter((b) => b.section === SECTION);
    expect(blocks).toHaveLength(1);
    const full = parseWorkload(blocks[0]!.text, `${PAGE}:${blocks[0]!.line}`);
    const shipped = await loadWorkloadFile(path.join(REPO_ROOT, 'workloads/release-to-release.yml'));
    expect(full).toMatchObject({ scale: 1000, clients: [100], duration: 300 });
    // The same comparison otherwise: the size, the run lengths and the buffers to hold the data set differ.
    const varied = ['name', 'description', 'scale', 'clients', 'duration', 'warmup', 'rounds', 'settings'];
    const rest = (w: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(w).filter(([k]) => !varied.includes(k)));
    expect(rest(full)).toEqual(rest(shipped));
    expect(designReach({ workloads: [full], arms: 2, alpha: 0.05 }).reachable).toBe(true);
  });

  it('quotes the refusal as pgperf words it', () => {
    const text = readFileSync(path.join(REPO_ROOT, PAGE), 'utf8');
    const quoted = text.split('\n').find((l) => l.trim().startsWith("pgperf: setting 'io_method'"));
    expect(quoted?.trim()).toBe(
      `pgperf: ${unknownSettingProblem({
        name: 'io_method',
        where: 'workload release-to-release-1000, settings',
        unknownTo: [{ label: 'base', version: 'PostgreSQL 17.11' }],
        knownTo: [{ label: 'head', version: 'PostgreSQL 18.6' }],
      })}`,
    );
  });
});
