/**
 * The Node.js version pgperf needs is the one its whole dependency tree needs: package.json's
 * `engines.node` must lie inside the `engines.node` of every package package-lock.json installs (runtime and
 * development, every platform's optional builds too), so `npm ci` on any Node it admits warns no
 * EBADENGINE, and the README states that same range. A dependency update that needs a newer Node fails
 * here, naming the package and its range: raise `engines.node` (and the README) or pin the dependency with
 * an `overrides` entry, as for content-type (@octokit/request 10.0.15+ asks for content-type 3, which needs
 * Node 22; 2.1.0 has the same `parse`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/doc-pages.js';

interface LockEntry {
  version?: string;
  engines?: Record<string, string> | string[];
}

const read = (file: string): unknown => JSON.parse(readFileSync(path.join(REPO_ROOT, file), 'utf8'));
const pkg = read('package.json') as { engines: { node: string } };
const lock = read('package-lock.json') as { packages: Record<string, LockEntry> };

/** Every package of the lock (not the root) with the Node range its engines field asks for. */
function nodeRanges(): Array<{ name: string; version: string; range: string }> {
  return Object.entries(lock.packages).flatMap(([where, entry]) => {
    const engines = entry.engines;
    // An array (a 2010-era form npm ignores) states nothing npm checks.
    const range = engines && !Array.isArray(engines) ? engines.node : undefined;
    if (where === '' || range === undefined) return [];
    return [{ name: where.replace(/^.*node_modules\//, ''), version: entry.version ?? '?', range }];
  });
}

describe('the Node.js version the dependency tree needs', () => {
  const ours = pkg.engines.node;

  it("package.json's engines.node is a valid range", () => {
    expect(semver.validRange(ours), ours).not.toBeNull();
  });

  it('lies inside every installed package’s engines.node', () => {
    const ranges = nodeRanges();
    expect(ranges.length).toBeGreaterThan(50);
    const tooNarrow = ranges
      .filter((r) => !semver.validRange(r.range) || !semver.subset(ours, r.range))
      .map((r) => `${r.name}@${r.version} needs node ${r.range}`);
    expect(tooNarrow, `package.json engines.node is ${ours}`).toEqual([]);
  });

  it('is no wider than it must be: the lowest Node it admits is one some package needs', () => {
    // The range is the intersection of what the packages ask, not a guess: its lowest version is the
    // lowest some package's range still admits, and the version before it is refused by one.
    const lowest = semver.minVersion(ours)!;
    const before = `${lowest.major}.${lowest.minor - 1}.0`;
    expect(lowest.minor, `${lowest.version} is a .0 release: say why in this test`).toBeGreaterThan(0);
    expect(nodeRanges().some((r) => !semver.satisfies(before, r.range))).toBe(true);
  });

  it('the README states the same range', () => {
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`\`${ours}\``);
  });

  it('what the checks use catches a package that needs a newer Node', () => {
    // The rule above, on the error it was written for: content-type 3.1.1 asks for Node >= 22.
    expect(semver.subset(ours, '>=22')).toBe(false);
    expect(semver.subset(ours, '>= 18')).toBe(true);
    expect(semver.subset(ours, '^20.0.0 || ^22.0.0 || >=24.0.0')).toBe(true);
  });
});
