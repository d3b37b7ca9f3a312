/**
 * The history site end to end: `pgperf history` (the CLI, through tsx) renders stored runs built from the
 * real noisy-runner captures with a planted slowdown (test/fixtures/history/README.md), and Debian's
 * headless Chromium opens the pages from file:// with all traffic sent to a recording proxy on loopback.
 * Checked as rendered: the chart drawn (canvas, legend with one entry per client count, the change-point
 * markers counted by the page as it drew them), no script or console errors, no request from the page,
 * and in the screenshot (kept in test-artifacts/history/) the red dashed marker and both lines' colours.
 * Then three more histories, one run, runs minutes apart and runs months apart: each chart's time axis as
 * uPlot drew it (recorded by the page in data-x-axis) has tick labels that do not overlap, lie on the
 * canvas and label a range around the runs, and each index row shows its series' latest value and trend.
 * The index draws what each answer cost (the runs that recorded it) and says how many runs it leaves out.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistoryRun } from '../../src/core/history/series.js';
import { commitSha, noisyHistory, WORKLOAD } from '../unit/history/noisy-history.js';

const root = new URL('../../', import.meta.url).pathname;
const artifacts = path.join(root, 'test-artifacts/history');
const chromium = ['chromium', 'chromium-browser'].find((c) => spawnSync(c, ['--version']).status === 0);
let tmp: string;
let site: string;
let proxy: http.Server;
let proxyPort: number;
const proxied: string[] = [];

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], timeoutMs = 90_000): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function pgperf(args: string[]): Promise<Ran> {
  return run(process.execPath, ['--import', 'tsx', path.join(root, 'src/cli.ts'), ...args]);
}

/** `pgperf history` of the results directory the test wrote, into `out`. */
function historyOfResults(out: string, extra: string[] = []): Promise<Ran> {
  return pgperf(['history', '--results', path.join(tmp, 'results'), '--out', out, ...extra]);
}

/** Headless Chromium on a page, every request through the recording proxy. */
async function browse(file: string, mode: string[]): Promise<Ran> {
  const profile = await mkdtemp(path.join(tmp, 'profile-'));
  return run(chromium!, [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
    `--user-data-dir=${profile}`,
    `--proxy-server=http://127.0.0.1:${proxyPort}`,
    '--proxy-bypass-list=<-loopback>',
    '--enable-logging=stderr',
    '--v=0',
    '--window-size=1280,1100',
    '--virtual-time-budget=5000',
    ...mode,
    `file://${file}`,
  ]);
}

/**
 * Requests the page could have made: everything the proxy saw except Chromium's own service traffic
 * (component updates, network time, accounts), which it sends to Google hosts whatever the page.
 */
function pageRequests(): string[] {
  return proxied.filter((r) => !/\b(google\.com|googleapis\.com|gstatic\.com|gvt1\.com)\b/.test(r));
}

/** Each history's runs as results files under `dir`/results. */
async function writeResults(dir: string, runs: readonly HistoryRun[]): Promise<string[]> {
  const files: string[] = [];
  for (const r of runs) {
    const runDir = path.join(dir, 'results', r.runId!);
    await mkdir(runDir, { recursive: true });
    files.push(path.join(runDir, 'results.json'));
    await writeFile(files[files.length - 1]!, JSON.stringify(r, null, 2));
  }
  return files;
}

beforeAll(async () => {
  if (!chromium) throw new Error("Debian's chromium is not installed: apt-get install -y chromium");
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-it-history-'));
  site = path.join(tmp, 'site');
  // Nights 10 on record what their answer cost: the index's cost chart draws 30 runs and leaves 10 out.
  await writeResults(tmp, noisyHistory({ costFrom: 10 }));
  proxy = http.createServer((req, res) => {
    proxied.push(`${req.method} ${req.url}`);
    res.writeHead(502).end();
  });
  proxy.on('connect', (req, socket) => {
    proxied.push(`CONNECT ${req.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyPort = (proxy.address() as AddressInfo).port;
  await mkdir(artifacts, { recursive: true });
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('pgperf history in headless Chromium', () => {
  let page: string;

  it('renders the site from a directory of results files and prints the job summary', async () => {
    const r = await historyOfResults(site, ['--repo-url', 'https://github.com/postgres/postgres']);
    expect(r.stderr).toContain(`wrote 2 pages to ${site}`);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^### Performance history\n\n\*\*2 regressions\*\* in 2 series/);
    expect(r.stdout).toContain(`https://github.com/postgres/postgres/commit/${commitSha(26)}`);
    page = path.join(site, `workload-${WORKLOAD}.html`);
    const html = await readFile(page, 'utf8');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/i);
  }, 120_000);

  it('reads the same history from a results store (--store) as from the files', async () => {
    const store = path.join(tmp, 'store');
    const files = (await readdir(path.join(tmp, 'results'))).map((d) =>
      path.join(tmp, 'results', d, 'results.json'),
    );
    const imported = await pgperf(['store', 'import', '--store', store, ...files]);
    expect(imported.code, imported.stderr).toBe(0);
    const fromFiles = await historyOfResults(path.join(tmp, 'a'));
    const fromStore = await pgperf(['history', '--store', store, '--out', path.join(tmp, 'b')]);
    expect(fromStore.code, fromStore.stderr).toBe(0);
    expect(fromStore.stdout).toBe(fromFiles.stdout);
    expect(await readFile(path.join(tmp, 'b', `workload-${WORKLOAD}.html`), 'utf8')).toBe(
      await readFile(path.join(tmp, 'a', `workload-${WORKLOAD}.html`), 'utf8'),
    );
  }, 180_000);

  it('draws the chart with a line per client count and the change points marked, without errors', async () => {
    const r = await browse(page, ['--dump-dom']);
    expect(r.code).toBe(0);
    const dom = r.stdout;
    await writeFile(path.join(artifacts, 'workload-dom.html'), dom);
    expect(r.stderr.split('\n').filter((l) => l.includes(':CONSOLE'))).toEqual([]);
    expect(dom).toMatch(/<body[^>]* data-charts="1"/);
    expect(dom).not.toMatch(/<body[^>]* data-errors=/);
    expect(dom).toMatch(/<body[^>]* data-resources="0"/);
    const chart = /<div class="chart" id="chart-1"([^>]*)>/.exec(dom)![1]!;
    expect(chart).toMatch(/data-drawn="[1-9]\d*"/);
    // Two change points in the data: the planted regression per client count (the "improvement" at night
    // 10 that the uncorrected split test reported was noise; see the change-point calibration).
    expect(chart).toContain('data-markers="2"');
    expect(dom).toContain('<canvas');
    const legend = /<table class="u-legend[^"]*">([\s\S]*?)<\/table>/.exec(dom)![1]!;
    expect(legend).toContain('1 client');
    expect(legend).toContain('2 clients');
    expect(dom).toMatch(
      new RegExp(
        `<tr class="regression" data-change-point="tps@1">.*commit/${commitSha(25)}.*commit/${commitSha(26)}`,
      ),
    );
    expect(pageRequests()).toEqual([]);
  }, 120_000);

  it('shows the lines and the red dashed change-point marker in a screenshot', async () => {
    const shot = path.join(artifacts, 'workload.png');
    const r = await browse(page, [`--screenshot=${shot}`]);
    expect(r.code).toBe(0);
    const image = decodePng(await readFile(shot));
    expect([image.width, image.height]).toEqual([1280, 1100]);
    const count = (rgb: [number, number, number]) => countColour(image, rgb, 24);
    expect(count([0xd6, 0x27, 0x28])).toBeGreaterThan(100); // regression marker
    expect(count([0x2c, 0xa0, 0x2c])).toBe(0); // no improvement marker: the data has none
    expect(count([0x1f, 0x77, 0xb4])).toBeGreaterThan(300); // 1 client line
    expect(count([0xff, 0x7f, 0x0e])).toBeGreaterThan(300); // 2 clients line
    expect(pageRequests()).toEqual([]);
  }, 120_000);

  it('renders the index with the verdict and a link to the workload page', async () => {
    const shot = path.join(artifacts, 'index.png');
    const r = await browse(path.join(site, 'index.html'), ['--dump-dom']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('<b>2 regressions</b> in 2 series over 40 runs');
    expect(r.stdout).toContain(`<a href="workload-${WORKLOAD}.html">${WORKLOAD}</a>`);
    // Each series with its latest value and unit, the latest run's date and commit, its change against the
    // runs before and the newest change point (the planted slowdown), and a sparkline.
    for (const clients of [1, 2]) {
      const row =
        new RegExp(`<tr data-series="tps@${clients}"[^>]*>([\\s\\S]*?)</tr>`).exec(r.stdout)?.[1] ?? '';
      expect(row).toMatch(/<td class="latest"[^>]*><b>\d+<\/b> tx\/s<\/td>/);
      expect(row).toContain(
        `2026-11-09 02:00 <a href="https://github.com/postgres/postgres/commit/${commitSha(39)}">`,
      );
      expect(row).toMatch(
        /<td class="recent"[^>]*>[+-]\d+\.\d\d% \((better|worse|same)\) vs \d+<br><small>median of the 5 runs before/,
      );
      expect(row).toMatch(/<td class="regression">▼ regression -(19|20)\.\d\d% \[/);
      expect(row).toMatch(/<svg class="spark"[^>]*>.*<polyline /);
    }
    // What each answer cost: the 30 runs that recorded it drawn, the 10 that did not said.
    const cost = /<div class="chart" id="cost-chart"([^>]*)>/.exec(r.stdout)?.[1] ?? '';
    expect(cost).toContain('data-cost-runs="30"');
    expect(cost).toMatch(/data-drawn="[1-9]\d*"/);
    expect(r.stdout).toContain('Left out: 10 runs that recorded no cost');
    expect(r.stdout).not.toMatch(/<body[^>]* data-errors=/);
    expect((await browse(path.join(site, 'index.html'), [`--screenshot=${shot}`])).code).toBe(0);
    const image = decodePng(await readFile(shot));
    expect(countColour(image, [0x8c, 0x56, 0x4b], 24)).toBeGreaterThan(100); // the build line
    expect(countColour(image, [0x17, 0xbe, 0xcf], 24)).toBeGreaterThan(100); // the timed rounds line
    expect(pageRequests()).toEqual([]);
  }, 120_000);

  it('refuses an unknown workload, naming the ones there are', async () => {
    const r = await historyOfResults(site, ['--workload', 'tpcb']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--workload 'tpcb' is not in the history; its workloads are: ${WORKLOAD}`);
  }, 120_000);
});

/** What a workload page recorded of a chart's time axis as uPlot drew it (recordTimeAxis in page-script.ts). */
interface DrawnAxis {
  /** The x scale, in seconds since the epoch. */
  min: number;
  max: number;
  plotLeft: number;
  plotWidth: number;
  canvasWidth: number;
  /** Every tick: its time and each line of its label with where the line's text lies (CSS px). */
  ticks: Array<{ t: number; lines: Array<{ text: string; left: number; right: number }> }>;
}

function drawnAxis(dom: string, id = 'chart-1'): DrawnAxis {
  const chart = new RegExp(`<div class="chart" id="${id}"([^>]*)>`).exec(dom)?.[1] ?? '';
  const recorded = /data-x-axis="([^"]*)"/.exec(chart)?.[1];
  expect(recorded, `${id} recorded its time axis`).toBeDefined();
  return JSON.parse(recorded!.replace(/&quot;/g, '"').replace(/&amp;/g, '&')) as DrawnAxis;
}

/** Fewest CSS pixels between neighbouring labels on one line of the axis for them to read apart. */
const MIN_LABEL_GAP_PX = 4;

/** Neighbouring tick labels whose texts on the same line overlap or come closer than MIN_LABEL_GAP_PX. */
function collisions(axis: DrawnAxis): string[] {
  const found: string[] = [];
  const depth = Math.max(0, ...axis.ticks.map((t) => t.lines.length));
  for (let line = 0; line < depth; line++) {
    const shown = axis.ticks.flatMap((t) => (t.lines[line]?.text ? [t.lines[line]!] : []));
    for (let i = 1; i < shown.length; i++) {
      const [a, b] = [shown[i - 1]!, shown[i]!];
      if (b.left - a.right < MIN_LABEL_GAP_PX)
        found.push(`"${a.text}" ${Math.round(b.left - a.right)} px from "${b.text}"`);
    }
  }
  return found;
}

/** Every label line's text, tick by tick. */
const labelTexts = (axis: DrawnAxis) => axis.ticks.flatMap((t) => t.lines.map((l) => l.text)).filter(Boolean);

const NOV_27 = Date.UTC(2026, 10, 27, 8, 3, 45);

/**
 * Three histories a user meets early: the store after the first run, runs a minute or so apart (trying
 * pgperf out, the first tick at 08:03:45 just before a minute rolls over, as in issue #29's
 * "11/27/26 8:03am8:04am"), and runs two months apart. `dates` in ms since the epoch; `labels` must be
 * written on the axis (the runs' date, or the years the runs span).
 */
const AXIS_CASES = [
  {
    name: 'one-run',
    what: 'one run (read from a store)',
    dates: [NOV_27],
    labels: ['Nov 27 2026'],
    store: true,
  },
  {
    name: 'minutes',
    what: 'runs minutes apart',
    dates: [0, 58, 121, 183, 240, 300].map((s) => NOV_27 + s * 1000),
    labels: ['Nov 27 2026'],
    store: false,
  },
  {
    name: 'months',
    what: 'runs months apart',
    dates: Array.from({ length: 8 }, (_, k) => Date.UTC(2026, 2 * k, 15, 2, 0, 0)),
    labels: ['2026', '2027'],
    store: false,
  },
];

describe.each(AXIS_CASES)('the history of $what in headless Chromium', ({ name, dates, labels, store }) => {
  let out: string;

  it('draws a time axis around the runs whose tick labels do not collide', async () => {
    const dir = path.join(tmp, name);
    const files = await writeResults(
      dir,
      noisyHistory({ nights: dates.length, stepAt: Infinity, startedAt: (k) => new Date(dates[k]!) }),
    );
    out = path.join(dir, 'site');
    let r: Ran;
    if (store) {
      const imported = await pgperf(['store', 'import', '--store', path.join(dir, 'store'), ...files]);
      expect(imported.code, imported.stderr).toBe(0);
      r = await pgperf(['history', '--store', path.join(dir, 'store'), '--out', out]);
    } else r = await pgperf(['history', '--results', path.join(dir, 'results'), '--out', out]);
    expect(r.code, r.stderr).toBe(0);

    const page = path.join(out, `workload-${WORKLOAD}.html`);
    const browsed = await browse(page, ['--dump-dom']);
    expect(browsed.code).toBe(0);
    const dom = browsed.stdout;
    await writeFile(path.join(artifacts, `axis-${name}-dom.html`), dom);
    expect(dom).not.toMatch(/<body[^>]* data-errors=/);
    const axis = drawnAxis(dom);
    const times = dates.map((d) => d / 1000);
    const at = (t: number) => (t - axis.min) / (axis.max - axis.min);
    // Soft: on a broken axis every failing check is listed, not only the first.
    // Every run inside the scale and off its edges, where a point would be cut in half.
    expect.soft(at(Math.min(...times))).toBeGreaterThan(0.01);
    expect.soft(at(Math.max(...times))).toBeLessThan(0.99);
    if (times.length === 1) expect.soft(at(times[0]!)).toBeCloseTo(0.5, 2);
    // The labelled ticks span the runs: the first labelled tick before the middle run, the last after it,
    // and the runs' date is written on the axis.
    const labelled = axis.ticks.filter((t) => t.lines.some((l) => l.text));
    expect(labelled.length).toBeGreaterThanOrEqual(3);
    const middle = times[Math.floor(times.length / 2)]!;
    expect.soft(labelled[0]!.t).toBeLessThanOrEqual(middle);
    expect.soft(labelled[labelled.length - 1]!.t).toBeGreaterThanOrEqual(middle);
    for (const label of labels) expect.soft(labelTexts(axis)).toContain(label);
    // Readable: no two labels on one line overlap, and every label lies on the canvas.
    expect.soft(collisions(axis), labelTexts(axis).join(' | ')).toEqual([]);
    for (const line of axis.ticks.flatMap((t) => t.lines)) {
      expect.soft(line.left).toBeGreaterThanOrEqual(0);
      expect.soft(line.right).toBeLessThanOrEqual(axis.canvasWidth);
    }

    const shot = path.join(artifacts, `axis-${name}.png`);
    expect((await browse(page, [`--screenshot=${shot}`])).code).toBe(0);
    const image = decodePng(await readFile(shot));
    expect(countColour(image, [0x1f, 0x77, 0xb4], 24)).toBeGreaterThan(8); // the 1 client points
    expect(pageRequests()).toEqual([]);
  }, 240_000);

  it("lists each series in the index with its latest run's value and date", async () => {
    const index = path.join(out, 'index.html');
    const browsed = await browse(index, ['--dump-dom']);
    expect(browsed.code).toBe(0);
    const latest = new Date(Math.max(...dates)).toISOString().slice(0, 16).replace('T', ' ');
    for (const clients of [1, 2]) {
      const row =
        new RegExp(`<tr data-series="tps@${clients}"[^>]*>([\\s\\S]*?)</tr>`).exec(browsed.stdout)?.[1] ?? '';
      expect(row).toMatch(/<b>\d+<\/b> tx\/s/);
      expect(row).toContain(`${latest} <code>${commitSha(dates.length - 1).slice(0, 10)}</code>`);
      expect(row).toContain(
        dates.length === 1 ? 'first run' : `median of the ${Math.min(5, dates.length - 1)} runs before`,
      );
      expect(row).toContain(
        dates.length < 6
          ? `not analysed yet: ${dates.length} of 6 runs needed`
          : `no change point in ${dates.length} runs`,
      );
    }
    expect((await browse(index, [`--screenshot=${path.join(artifacts, `index-${name}.png`)}`])).code).toBe(0);
  }, 120_000);
});

interface Png {
  width: number;
  height: number;
  channels: number;
  pixels: Buffer;
}

/** A minimal decoder for Chromium's screenshots: 8-bit RGB or RGBA, not interlaced. */
function decodePng(file: Buffer): Png {
  expect(file.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  while (offset < file.length) {
    const length = file.readUInt32BE(offset);
    const type = file.toString('ascii', offset + 4, offset + 8);
    const body = file.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      expect(body[8]).toBe(8); // bit depth
      channels = body[9] === 6 ? 4 : body[9] === 2 ? 3 : 0;
      expect(channels).toBeGreaterThan(0);
      expect(body[12]).toBe(0); // no interlace
    } else if (type === 'IDAT') data.push(body);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let x = 0; x < stride; x++) {
      const byte = raw[y * (stride + 1) + 1 + x]!;
      const a = x >= channels ? pixels[y * stride + x - channels]! : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels]! : 0;
      const p = a + b - c;
      const predictor =
        filter === 0
          ? 0
          : filter === 1
            ? a
            : filter === 2
              ? b
              : filter === 3
                ? (a + b) >> 1
                : Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
                  ? a
                  : Math.abs(p - b) <= Math.abs(p - c)
                    ? b
                    : c;
      pixels[y * stride + x] = (byte + predictor) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

function countColour(image: Png, [r, g, b]: [number, number, number], tolerance: number): number {
  let n = 0;
  for (let i = 0; i < image.pixels.length; i += image.channels) {
    const px = image.pixels;
    if (
      Math.abs(px[i]! - r) <= tolerance &&
      Math.abs(px[i + 1]! - g) <= tolerance &&
      Math.abs(px[i + 2]! - b) <= tolerance
    )
      n++;
  }
  return n;
}
