/**
 * waterfall.svg: the attribution's waterfall as an image, read back with a strict XML reader
 * (test/helpers/xml-tree.ts) from what the flow writes over a faked history with four commits named
 * (three up, one down): its bars in order, their values, directions and geometry, their labels, and
 * hostile subjects kept as text. attribution.md shows the image beside it.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAttribution } from '../../../src/flows/attribute/attribution-flow.js';
import type { AttributionReport } from '../../../src/core/attribution/attribution-report.js';
import { renderWaterfallSvg } from '../../../src/core/report/attribution/waterfall-svg.js';
import { attributionFakes, attributionRequest, sha } from '../../helpers/attribution-fakes.js';
import { findAll, parseXml, type XmlElement } from '../../helpers/xml-tree.js';

let dir: string;
let report: AttributionReport;
let svg: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'waterfall-svg-'));
  const f = attributionFakes(12, { 3: 600, 5: 400, 8: 900, 10: -400 });
  report = await runAttribution(attributionRequest(path.join(dir, 'cache'), path.join(dir, 'out')), f.deps);
  svg = await readFile(path.join(dir, 'out', 'waterfall.svg'), 'utf8');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const bars = (root: XmlElement) =>
  findAll(root, (e) => e.name === 'g' && e.attrs.class?.startsWith('bar ') === true);
const rectOf = (bar: XmlElement) => {
  const r = bar.children.find((c) => c.name === 'rect')!;
  return {
    top: Number(r.attrs.y),
    bottom: Number(r.attrs.y) + Number(r.attrs.height),
    height: Number(r.attrs.height),
  };
};
const texts = (bar: XmlElement) => bar.children.filter((c) => c.name === 'text').map((t) => t.text);

describe('waterfall.svg', () => {
  it('is an SVG document with one bar per step from the from end through each commit to the to end', () => {
    const root = parseXml(svg);
    expect(root.name).toBe('svg');
    expect(root.attrs.xmlns).toBe('http://www.w3.org/2000/svg');
    const b = bars(root);
    expect(b.map((x) => x.attrs['data-kind'])).toEqual([
      'from',
      'commit',
      'commit',
      'commit',
      'commit',
      'remainder',
      'to',
    ]);
    expect(b.map((x) => x.attrs.class)).toEqual([
      'bar level',
      'bar up',
      'bar up',
      'bar up',
      'bar down',
      'bar zero',
      'bar level',
    ]);
    const steps = b.slice(1, 5).map((x) => Number(x.attrs['data-value']));
    [600, 400, 900, -400].forEach((v, i) => expect(steps[i]).toBeCloseTo(v, 6));
    expect(Number(b[0]!.attrs['data-value'])).toBeCloseTo(report.workloads[0]!.fromPerTx, 6);
    expect(Number(b[6]!.attrs['data-value'])).toBeCloseTo(report.workloads[0]!.toPerTx, 6);
    // Labelled with the short sha and the change per transaction; the subject is the tooltip.
    expect(texts(b[1]!)).toEqual(['+600', '0003aaa']);
    expect(texts(b[4]!)).toEqual(['-400', '0010aaa']);
    expect(b[4]!.children.find((c) => c.name === 'title')!.text).toBe('0010aaa add work -400: -400/tx');
    expect(texts(b[0]!)).toEqual(['30,000', 'from']);
  });

  it('draws each step from the running total: heights in proportion, each bar starting where the last ended', () => {
    const b = bars(parseXml(svg)).map(rectOf);
    const [, up600, up400, up900, down400] = b;
    expect(up900!.height / up600!.height).toBeCloseTo(1.5, 1);
    expect(up400!.height / down400!.height).toBeCloseTo(1, 1);
    // Up: the next step starts at this one's top; down: the down bar's top is the last up bar's top.
    expect(up400!.bottom).toBeCloseTo(up600!.top, 0);
    expect(up900!.bottom).toBeCloseTo(up400!.top, 0);
    expect(down400!.top).toBeCloseTo(up900!.top, 0);
    // The to end's level is the last running total: its top at the down bar's bottom.
    expect(b[6]!.top).toBeCloseTo(down400!.bottom, 0);
  });

  it('keeps hostile subjects and workload names as text', () => {
    const hostile: AttributionReport = {
      ...report,
      workloads: report.workloads.map((w) => ({ ...w, workload: 'sel"><script>&' })),
      culprits: report.culprits.map((c) => ({
        ...c,
        subject: '</title><script>alert(1)</script> & "x"',
        changes: c.changes.map((x) => ({ ...x, workload: 'sel"><script>&' })),
      })),
    };
    const root = parseXml(renderWaterfallSvg(hostile));
    expect(findAll(root, (e) => e.name === 'script')).toEqual([]);
    expect(bars(root)[1]!.children.find((c) => c.name === 'title')!.text).toBe(
      '0003aaa </title><script>alert(1)</script> & "x": +600/tx',
    );
    expect(
      findAll(root, (e) => e.name === 'g' && e.attrs.class === 'workload')[0]!.attrs['data-workload'],
    ).toBe('sel"><script>&');
  });

  it('is shown by attribution.md beside it', async () => {
    const md = await readFile(path.join(dir, 'out', 'attribution.md'), 'utf8');
    expect(md).toContain('![waterfall from 0000aaa to 0012aaa](waterfall.svg)');
    expect(md).toMatch(new RegExp(`\\| \`0010aaa\` \\| −400 \\(-1\\.25%\\) \\| -27 % \\| add work -400 \\|`));
    expect(md).not.toContain('```');
    expect(sha(0)).toBe(report.from.sha);
  });
});
