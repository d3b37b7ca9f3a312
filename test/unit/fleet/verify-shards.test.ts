/**
 * Consolidation refuses shard files it cannot trust, each refusal a UserError naming the file and what is
 * wrong: an index out of range, a shard or a sample given twice, cells outside the plan or not the ones the
 * plan assigns, mixed plans, samples that do not match their digest. The shards are a real results document
 * split by cell (shard-documents.ts), sealed here as the run loop seals a shard (plan hash, split, digest);
 * unsealed they are documents of an older pgperf, which stay readable with the checks that need neither.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { consolidateShards, type ShardFile } from '../../../src/flows/consolidate/shard-merge.js';
import { readShardFiles, shardsInStore } from '../../../src/flows/consolidate/gather-shards.js';
import { planHashOf, samplesDigestOf, sealShard, sealingSink } from '../../../src/run/shard-digest.js';
import { selectShard } from '../../../src/run/shards.js';
import { parseWorkload } from '../../../src/drivers/load-workload.js';
import type { ResultSink } from '../../../src/run/sink.js';
import { cellId, type RunResult } from '../../../src/core/results/result-types.js';
import { UserError } from '../../../src/core/util/errors.js';
import { memoryLogger } from '../../../src/core/util/logger.js';
import { shardDocuments, whole } from './shard-documents.js';

/** A deep copy, so that a test may edit a document freely. */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** The helper's shards with the plan's identity and the samples digest, as a shard job writes them. */
function sealed(count: number, cpu?: string): ShardFile[] {
  const docs = copy(shardDocuments(count, cpu));
  return docs.map(({ file, result }) => {
    const shard = result.plan.shard!;
    const assignment = copy(docs.map((d) => d.result.plan.cells));
    shard.assignment = assignment;
    shard.planHash = planHashOf({ ...shard, assignment });
    sealShard(result);
    return { file, result };
  });
}

/** `text` as a regular expression that matches it literally (file names have spaces and dots). */
const lit = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Re-seals after an edit of the samples, as a forger who recomputes the digest would. */
function reseal(f: ShardFile): ShardFile {
  sealShard(f.result);
  return f;
}

/** The UserError consolidateShards throws (fails the test when it throws nothing or something else). */
function refusal(files: ShardFile[]): UserError {
  try {
    consolidateShards(files);
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return e as UserError;
  }
  throw new Error('consolidateShards accepted the files');
}

describe('sealed shards', () => {
  it('consolidate when untouched: every cell, every sample, a digest of the merged samples, no caveat', () => {
    const merged = consolidateShards(sealed(3)).classes[0]!;
    expect(merged.missing).toEqual([]);
    expect(merged.result.plan.cells.map(cellId)).toEqual(whole.plan.cells.map(cellId));
    expect(merged.result.samples).toHaveLength(whole.samples.length);
    expect(merged.result.plan.shard).toMatchObject({ index: 0, count: 3 });
    expect(merged.result.plan.shard!.samplesDigest).toBe(samplesDigestOf(merged.result.samples));
    expect(merged.result.warnings.join('\n')).not.toMatch(/older pgperf/);
  });

  it('the digest is the same for the samples in memory and read back from JSON', () => {
    expect(samplesDigestOf(copy(whole.samples))).toBe(samplesDigestOf(whole.samples));
    const reordered = whole.samples.map((s) => Object.fromEntries(Object.entries(s).reverse()));
    expect(samplesDigestOf(reordered as unknown as RunResult['samples'])).toBe(
      samplesDigestOf(whole.samples),
    );
  });
});

describe('consolidate refuses', () => {
  it('a shard index out of range: shard 5 of 2', () => {
    for (const shards of [sealed(2), copy(shardDocuments(2))]) {
      shards[1]!.result.plan.shard!.index = 5;
      expect(refusal(shards).message).toBe(
        `${shards[1]!.file}: plan.shard.index is 5, but plan 0123456789abcdef has 2 shards: expected 1 to 2`,
      );
    }
    const zero = sealed(2);
    zero[0]!.result.plan.shard!.index = 0;
    expect(refusal(zero).message).toMatch(
      /shard-1\/results\.json: a consolidated document \(plan\.shard\.index 0\)/,
    );
  });

  it('a shard count the plan cannot fill', () => {
    const shards = copy(shardDocuments(2));
    for (const s of shards) s.result.plan.shard!.count = 50;
    expect(refusal(shards).message).toBe(
      `${shards[0]!.file}: plan.shard.count is 50, but plan 0123456789abcdef has 9 cells (plan.shard.allCells): every shard needs at least one cell`,
    );
  });

  it('the same shard twice', () => {
    const [one, two] = sealed(2);
    expect(refusal([one!, two!, copy(one!)]).message).toMatch(
      new RegExp(
        `^${lit(one!.file)} and ${lit(one!.file)} are both shard 1/2 of machine class [0-9a-f]{16}$`,
      ),
    );
  });

  it('a sample twice in one file', () => {
    const shards = sealed(2);
    const samples = shards[0]!.result.samples;
    samples.push(copy(samples[0]!));
    reseal(shards[0]!);
    expect(refusal(shards).message).toBe(
      `${shards[0]!.file}: samples[0] and samples[${samples.length - 1}] are the same run (${cellId(samples[0]!)} arm ${samples[0]!.arm} round ${samples[0]!.round} attempt 1): duplicate samples would count one measurement twice`,
    );
  });

  it('a sample in two shards', () => {
    const shards = sealed(2);
    const stolen = copy(shards[0]!.result.samples[3]!);
    shards[1]!.result.samples.push(stolen);
    reseal(shards[1]!);
    expect(refusal(shards).message).toMatch(
      new RegExp(
        `^${lit(shards[0]!.file)} \\(samples\\[3\\]\\) and ${lit(shards[1]!.file)} \\(samples\\[\\d+\\]\\) both hold the same run \\(${cellId(stolen)} arm ${stolen.arm} round ${stolen.round} attempt 1\\)`,
      ),
    );
  });

  it('a cell outside the plan', () => {
    for (const shards of [sealed(2), copy(shardDocuments(2))]) {
      shards[0]!.result.plan.cells.push({ workload: 'forged', clients: 7 });
      expect(refusal(shards).message).toMatch(
        new RegExp(
          `^${lit(shards[0]!.file)}: plan\\.cells has forged@7, which is not a cell of plan 0123456789abcdef \\(its cells: smoke@1, `,
        ),
      );
    }
  });

  it('a cell list that is not what the plan assigns to the shard', () => {
    const shards = sealed(2);
    const [one, two] = shards.map((s) => s.result);
    // Shard 1 claims one of shard 2's cells too (with its samples), the digest recomputed.
    const taken = two!.plan.cells[0]!;
    one!.plan.cells.push(taken);
    one!.samples.push(...two!.samples.filter((s) => cellId(s) === cellId(taken)));
    reseal(shards[0]!);
    expect(refusal(shards).message).toMatch(
      new RegExp(
        `^${lit(shards[0]!.file)}: plan\\.cells \\(.*${cellId(taken)}\\) are not the cells plan 0123456789abcdef assigns to shard 1/2 \\(`,
      ),
    );
  });

  it("a split edited to match forged cells: the plan hash no longer matches, or (recomputed) the other shard's", () => {
    const shards = sealed(2);
    const shard = shards[0]!.result.plan.shard!;
    const taken = shard.assignment![1]!.shift()!;
    shard.assignment![0]!.push(taken);
    shards[0]!.result.plan.cells.push(taken);
    expect(refusal(shards).message).toMatch(
      new RegExp(
        `^${lit(shards[0]!.file)}: plan\\.shard\\.planHash is [0-9a-f]{12}, but the plan it describes \\(planId, count, allCells, assignment\\) hashes to [0-9a-f]{12}: the plan's identity was edited$`,
      ),
    );
    shard.planHash = planHashOf({ ...shard, assignment: shard.assignment! });
    expect(refusal(shards).message).toMatch(
      new RegExp(
        `^${lit(shards[1]!.file)}: plan hash [0-9a-f]{12}, but ${lit(shards[0]!.file)} has [0-9a-f]{12} for the same plan 0123456789abcdef: the shards do not agree on the plan's cells or their split \\(mixed plans\\)$`,
      ),
    );
  });

  it('a split that loses or doubles a cell', () => {
    const lost = sealed(2);
    const a = lost[0]!.result.plan.shard!;
    a.assignment![1]!.pop();
    a.planHash = planHashOf({ ...a, assignment: a.assignment! });
    expect(refusal(lost).message).toMatch(/plan\.shard\.assignment gives no shard the cell \S+ of plan/);
    const doubled = sealed(2);
    const b = doubled[0]!.result.plan.shard!;
    b.assignment![1]!.push(b.assignment![0]![0]!);
    expect(refusal(doubled).message).toMatch(
      /plan\.shard\.assignment gives the cell smoke@1 to shards 1 and 2; a cell belongs to one shard/,
    );
  });

  it('an older shard file beside verified ones (the plan hash and digest dropped from one file)', () => {
    const shards = sealed(2);
    const shard = shards[1]!.result.plan.shard!;
    delete shard.assignment;
    delete shard.planHash;
    delete shard.samplesDigest;
    expect(refusal(shards).message).toBe(
      `${shards[1]!.file} carries no plan hash and samples digest (an older pgperf wrote it, or they were removed), but ${shards[0]!.file} does: mixed shard files cannot be verified together; consolidate the files the shard jobs of one pgperf version wrote`,
    );
    const partly = sealed(2);
    delete partly[0]!.result.plan.shard!.planHash;
    expect(refusal(partly).message).toMatch(/shard-1\/results\.json: plan\.shard has no planHash: /);
  });

  it('mixed plans: another plan id, or the same id with other cells', () => {
    const shards = sealed(2);
    const other = copy(shards[1]!);
    other.file = 'other/results.json';
    const otherShard = other.result.plan.shard!;
    otherShard.planId = 'fedcba9876543210';
    otherShard.planHash = planHashOf({ ...otherShard, assignment: otherShard.assignment! });
    expect(refusal([shards[0]!, other]).message).toBe(
      `other/results.json: plan fedcba9876543210 (2 shards), but ${shards[0]!.file} is plan 0123456789abcdef (2 shards): the shards belong to different comparisons`,
    );
    const old = copy(shardDocuments(2));
    old[1]!.result.plan.shard!.allCells = old[1]!.result.plan.shard!.allCells.slice(1);
    expect(refusal(old).message).toMatch(
      /shard-2\/results\.json: plan\.shard\.allCells \(.*\) differ from .*shard-1\/results\.json's \(.*\) for the same plan 0123456789abcdef \(mixed plans\)$/,
    );
  });

  it('samples that do not match their digest', () => {
    const shards = sealed(2);
    const sample = shards[1]!.result.samples[0]!;
    sample.metrics.tps = (sample.metrics.tps ?? 0) * 2;
    expect(refusal(shards).message).toMatch(
      new RegExp(
        `^${lit(shards[1]!.file)}: the samples do not match plan\\.shard\\.samplesDigest \\(recorded [0-9a-f]{12}, computed [0-9a-f]{12}\\): they were changed after pgperf wrote them`,
      ),
    );
    const dropped = sealed(2);
    dropped[0]!.result.samples.pop();
    expect(refusal(dropped).message).toMatch(/shard-1\/results\.json: the samples do not match/);
  });

  it('older files: a cell in two shards, and samples of a cell the shard does not have', () => {
    const overlap = copy(shardDocuments(2));
    overlap[1]!.result.plan.cells.push(overlap[0]!.result.plan.cells[0]!);
    expect(refusal(overlap).message).toBe(
      `${overlap[0]!.file} and ${overlap[1]!.file} both claim the cell smoke@1 (plan.cells): a cell belongs to one shard`,
    );
    const foreign = copy(shardDocuments(2));
    const moved = foreign[0]!.result.samples.shift()!;
    foreign[1]!.result.samples.push(moved);
    expect(refusal(foreign).message).toMatch(
      new RegExp(
        `^${lit(foreign[1]!.file)}: samples\\[\\d+\\] is of the cell ${cellId(moved)}, which is not one of this shard's cells \\(`,
      ),
    );
  });
});

describe('older shard files', () => {
  it('are consolidated with the checks that need no digest, and the report says what was not verified', () => {
    const merged = consolidateShards(copy(shardDocuments(3))).classes[0]!;
    expect(merged.result.samples).toHaveLength(whole.samples.length);
    expect(merged.result.plan.shard!.samplesDigest).toBeUndefined();
    expect(merged.result.warnings).toContain(
      'the shards carry no plan hash and samples digest (an older pgperf wrote them): their indexes, cells and samples were checked against the plan, their split and their samples could not be verified',
    );
  });
});

describe('a shard job records the identity and the digest', () => {
  const w = parseWorkload(
    'name: w\ntool: pgbench\nbuiltin: select-only\nclients: [1, 2, 4]\nrounds: 4\n',
    'w.yml',
  );
  it('selectShard: the split and its hash, the same in every shard of the plan', () => {
    const infos = [1, 2, 3].map((index) => selectShard([w], { index, count: 3 }).info);
    const [one] = infos;
    expect(one!.assignment!.flat().map(cellId).sort()).toEqual(['w@1', 'w@2', 'w@4']);
    expect(one!.planHash).toBe(planHashOf({ ...one!, assignment: one!.assignment! }));
    expect(new Set(infos.map((i) => i.planHash)).size).toBe(1);
    expect(selectShard([w], { index: 1, count: 2 }).info.planHash).not.toBe(one!.planHash);
  });

  it('sealingSink: the digest of the samples written with every update and at the end', async () => {
    const written: string[] = [];
    const sink: ResultSink = {
      description: 'memory',
      update: async (r) => void written.push(JSON.stringify(r)),
      finish: async (r) => void written.push(JSON.stringify(r)),
    };
    const sealing = sealingSink(sink);
    const doc = copy(sealed(2)[0]!.result);
    const all = doc.samples;
    doc.samples = [];
    for (const s of all) {
      doc.samples.push(s);
      await sealing.update(doc);
    }
    await sealing.finish(doc);
    expect(written).toHaveLength(all.length + 1);
    for (const text of written) {
      const read = JSON.parse(text) as RunResult;
      expect(read.plan.shard!.samplesDigest).toBe(samplesDigestOf(read.samples));
    }
  });
});

describe('gathering refuses a bad shard by name before anything waits for it', () => {
  it('a results file under results-dir', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pgperf-verify-shards-'));
    try {
      const [one] = sealed(2);
      one!.result.plan.shard!.index = 5;
      const file = path.join(dir, 'results.json');
      await writeFile(file, JSON.stringify(one!.result));
      await expect(readShardFiles([file], memoryLogger())).rejects.toThrow(
        `${file}: plan.shard.index is 5, but plan 0123456789abcdef has 2 shards: expected 1 to 2`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a run in the store', async () => {
    const [, two] = sealed(2);
    two!.result.samples[0]!.metrics.tps = -1;
    const store = {
      list: async () => [{ id: 'r1' }],
      load: async () => two!.result,
    };
    await expect(shardsInStore(store, { headSha: 'x' })).rejects.toThrow(
      /^store run r1: the samples do not match plan\.shard\.samplesDigest/,
    );
  });
});
