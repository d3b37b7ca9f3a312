import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  applyPatches,
  failingFiles,
  isMailPatch,
  mailboxMessages,
  readPatches,
} from '../../src/postgres/builds/patches.js';
import { MAILBOX_MESSAGES } from '../../src/core/bounds.js';
import type { ProcessResult, ProcessRunner } from '../../src/machine/os/process.js';
import { SourceMirror, parseLsRemote, parseRepo, pickRef } from '../../src/postgres/builds/source.js';
import { memoryLogger } from '../../src/core/util/logger.js';
import { nodeProcessRunner } from '../../src/machine/os/process.js';
import { gitIn } from '../helpers/git.js';

describe('--repo', () => {
  it.each([
    [
      'https://github.com/postgres/postgres.git',
      'https://github.com/postgres/postgres.git',
      false,
      undefined,
    ],
    ['git@github.com:postgres/postgres.git', 'git@github.com:postgres/postgres.git', false, undefined],
    ['file:///srv/pg', 'file:///srv/pg', true, '/srv/pg'],
    ['/srv/pg', 'file:///srv/pg', true, '/srv/pg'],
    ['../pg', 'file:///work/pg', true, '/work/pg'],
    // A local path is taken as it is: its "%" is no escape (git reads %XX in a file:// URL as one).
    ['/srv/pg%zz', 'file:///srv/pg%25zz', true, '/srv/pg%zz'],
    ['/srv/100%41', 'file:///srv/100%2541', true, '/srv/100%41'],
    ['/srv/pg%', 'file:///srv/pg%25', true, '/srv/pg%'],
    // A file:// URL is a URL: its %XX escapes are read as git reads them, a lone "%" as itself.
    ['file:///srv/a%41b', 'file:///srv/a%41b', true, '/srv/aAb'],
    ['file:///srv/pg%zz', 'file:///srv/pg%zz', true, '/srv/pg%zz'],
    ['file:///srv/%C3%A9t%C3%A9', 'file:///srv/%C3%A9t%C3%A9', true, '/srv/été'],
  ])('%s -> %s', (input, url, local, dir) => {
    expect(parseRepo(input, '/work/main')).toEqual({ input, url, local, ...(dir ? { path: dir } : {}) });
  });

  it('a local repository whose path holds "%" is found, resolved and fetched from (real git)', async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-repo-percent-'));
    try {
      // 'a%41b' beside 'aAb': a path whose "%41" git took for an escape would read the other repository.
      const tips: Record<string, string> = {};
      for (const name of ['pg%zz', 'a%41b', 'aAb']) {
        const dir = path.join(tmp, name);
        execFileSync('git', ['init', '-q', '-b', 'master', dir]);
        await writeFile(path.join(dir, name.replace('%', '_')), `${name}\n`);
        gitIn(dir)('add', '.');
        gitIn(dir)('commit', '-q', '-m', name);
        tips[name] = gitIn(dir)('rev-parse', 'HEAD');
      }
      for (const name of ['pg%zz', 'a%41b']) {
        const repo = parseRepo(name, tmp);
        const mirror = new SourceMirror(repo, path.join(tmp, 'git'), path.join(tmp, 'locks'), {
          runner: nodeProcessRunner,
          logger: memoryLogger(),
          env: process.env,
        });
        const sha = await mirror.resolve('master');
        expect(sha, name).toBe(tips[name]);
        await mirror.ensureCommits([sha]);
        expect(await mirror.hasFile(sha, name.replace('%', '_'))).toBe(true);
      }
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

// Captured from `git ls-remote https://github.com/postgres/postgres.git REL_17_0 'REL_17_0^{}' master`.
const LS_REMOTE = [
  'f3a5b2a4c6f41a8d8e7f5e7b9c3c1a3d0b4e5f60\trefs/heads/master',
  '9c4a1b7e0d3f2e5a6b8c9d0e1f2a3b4c5d6e7f80\trefs/tags/REL_17_0',
  'd7ec59a63d745ba74fba0e280bbf85dc6d1caa3e\trefs/tags/REL_17_0^{}',
  '1111111111111111111111111111111111111111\trefs/remotes/origin/master',
].join('\n');

describe('resolving a ref from ls-remote', () => {
  const refs = parseLsRemote(LS_REMOTE);
  it('an annotated tag resolves to the commit it points at', () => {
    expect(pickRef(refs, 'REL_17_0')).toBe('d7ec59a63d745ba74fba0e280bbf85dc6d1caa3e');
  });
  it('a branch resolves to its tip, not to a like-named remote-tracking ref', () => {
    expect(pickRef(refs, 'master')).toBe('f3a5b2a4c6f41a8d8e7f5e7b9c3c1a3d0b4e5f60');
    expect(pickRef(refs, 'refs/heads/master')).toBe('f3a5b2a4c6f41a8d8e7f5e7b9c3c1a3d0b4e5f60');
  });
  it('tags win over branches of the same name, as in git rev-parse', () => {
    const both = parseLsRemote('a'.repeat(40) + '\trefs/heads/x\n' + 'b'.repeat(40) + '\trefs/tags/x\n');
    expect(pickRef(both, 'x')).toBe('b'.repeat(40));
  });
  it('an unknown ref is undefined', () => {
    expect(pickRef(refs, 'nosuch')).toBeUndefined();
    expect(pickRef(refs, 'maste')).toBeUndefined();
  });
});

describe('patch formats', () => {
  it('git format-patch output and mailing-list mails are mail format (git am)', () => {
    expect(
      isMailPatch(
        'From 3c1e2b7e5e8f4d1f9b0a7c6d5e4f3a2b1c0d9e8f Mon Sep 17 00:00:00 2001\nFrom: A <a@b>\nDate: Mon, 1 Jan 2024\nSubject: [PATCH v3 1/2] Speed up x\n\nbody\n---\n',
      ),
    ).toBe(true);
    expect(isMailPatch('From: A <a@b>\nSubject: [PATCH] x\n\nbody\n')).toBe(true);
  });
  it('plain diffs are applied with git apply', () => {
    expect(isMailPatch('diff --git a/x.c b/x.c\nindex 1..2 100644\n--- a/x.c\n+++ b/x.c\n')).toBe(false);
    expect(isMailPatch('Subject: notes\n\ndiff --git a/x b/x\n')).toBe(false);
  });
});

/** A format-patch mail, a reply on the list, and a cover letter, as a reviewer saves them from a thread. */
const PATCH_MAIL = [
  'From 3c1e2b7e5e8f4d1f9b0a7c6d5e4f3a2b1c0d9e8f Mon Sep 17 00:00:00 2001',
  'From: A <a@b>',
  'Date: Mon, 1 Jan 2024 10:00:00 +0000',
  'Subject: [PATCH] Speed up x',
  '',
  'From here on the body: not a message start (no time and year).',
  '---',
  ' x | 1 +',
  '',
  'diff --git a/x b/x',
  '--- a/x',
  '+++ b/x',
  '@@ -1 +1,2 @@',
  ' a',
  '+b',
  '',
].join('\n');
const reply = (i: number) =>
  [
    'From reviewer@example.org Mon Jan  1 10:00:00 2024',
    'From: Reviewer <r@example.org>',
    `Subject: Re: [PATCH] Speed up x (${i})`,
    '',
    'From 10:00 on, nothing here starts a message either (no seconds, no year).',
    '',
  ].join('\n');

describe('messages of a mailbox', () => {
  it('are counted as git mailsplit splits them', async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-mailsplit-'));
    try {
      const boxes: Record<string, string> = {
        'one patch': PATCH_MAIL,
        'a thread': `${reply(1)}${PATCH_MAIL}${reply(2)}${reply(3)}`,
        'CRLF lines': `${reply(1)}${PATCH_MAIL}`.replaceAll('\n', '\r\n'),
        'leading blank lines': `\n\n${reply(1)}${PATCH_MAIL}`,
        // A first message without a "From " line (git am's mailsplit -b) runs to the end of the file.
        'a bare first mail': `From: A <a@b>\nSubject: x\n\nhi\n${reply(1)}${PATCH_MAIL}`,
        'a body line git takes for a message start': `${PATCH_MAIL}From 12:00:00 1970 on\n${PATCH_MAIL}`,
      };
      for (const [name, text] of Object.entries(boxes)) {
        const file = path.join(tmp, 'mbox');
        await writeFile(file, text);
        const out = path.join(tmp, name.replace(/\W/g, '_'));
        execFileSync('mkdir', ['-p', out]);
        const split = Number(
          execFileSync('git', ['mailsplit', '-b', `-o${out}`, file], { encoding: 'utf8' }),
        );
        expect(mailboxMessages(text), name).toBe(split);
      }
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });

  it(`a mailbox of more than ${MAILBOX_MESSAGES.max} is refused when it is read, before any build`, async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'pgperf-mailbox-bound-'));
    try {
      const thread = (replies: number) =>
        Array.from({ length: replies }, (_, i) => reply(i)).join('') + PATCH_MAIL;
      const fits = path.join(tmp, 'fits.mbox');
      const over = path.join(tmp, 'over.mbox');
      await writeFile(fits, thread(MAILBOX_MESSAGES.max - 1));
      await writeFile(over, thread(MAILBOX_MESSAGES.max));
      expect(await readPatches([fits], '--head-patch')).toHaveLength(1);
      await expect(readPatches([over], '--head-patch')).rejects.toThrow(
        `--head-patch ${over}: a mailbox of ${MAILBOX_MESSAGES.max + 1} messages, more than ${MAILBOX_MESSAGES.max}: git am skips each message without a diff (a cover letter, a reply) one at a time. Save only the messages with the patches, or the patch attachments`,
      );
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });

  it('a thread of 1001 replies before its patch applies: every reply is skipped, however many', async () => {
    // git as it answered a real mailbox of 1001 replies and a patch (git 2.39): `git am` and each
    // `git am --skip` stop at the next reply with "Patch is empty.", the 1001st skip applies the patch.
    const content = Array.from({ length: 1001 }, (_, i) => reply(i)).join('') + PATCH_MAIL;
    let skips = 0;
    const answer = (exitCode: number, stdout = ''): ProcessResult => ({
      command: ['git'],
      exitCode,
      signal: null,
      stdout,
      stderr: '',
      durationMs: 1,
      timedOut: false,
    });
    const git: ProcessRunner = {
      run: (_command, args) => {
        if (args[0] === 'rev-parse')
          return Promise.resolve(answer(0, skips > 1000 ? 'b'.repeat(40) : 'a'.repeat(40)));
        if (args.includes('--skip')) skips++;
        return Promise.resolve(skips > 1000 ? answer(0) : answer(128, 'Patch is empty.\n'));
      },
    };
    const logger = memoryLogger();
    await applyPatches('/src', [{ file: 'thread.mbox', sha256: 'x', content }], 'build head', {
      runner: git,
      logger,
      env: {},
    });
    expect(skips).toBe(1001);
    expect(logger.lines).toContain('build head: thread.mbox: skipped 1001 message(s) without a diff');
  });
});

describe('failing files in git apply / git am errors', () => {
  it('names the files git could not patch', () => {
    // git 2.39 `git apply` and `git am` wording.
    const apply =
      'error: patch failed: src/backend/utils/adt/int.c:1650\nerror: src/backend/utils/adt/int.c: patch does not apply\n';
    expect(failingFiles(apply)).toEqual(['src/backend/utils/adt/int.c']);
    const am =
      'Applying: Speed up x\nerror: src/include/nosuch.h: does not exist in index\nPatch failed at 0001 Speed up x\n';
    expect(failingFiles(am)).toEqual(['src/include/nosuch.h']);
    expect(failingFiles('error: src/x.c: No such file or directory\n')).toEqual(['src/x.c']);
    expect(failingFiles('error: No valid patches in input (allow with "--allow-empty")\n')).toEqual([]);
  });
});
