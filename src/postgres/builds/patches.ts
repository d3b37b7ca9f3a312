/**
 * Patches on top of a commit: read and hashed up front (a missing file is an error before any build), then
 * applied in order in the checkout, mail-format patches with `git am` and plain diffs with `git apply`; a
 * patch that does not apply names itself and the files git could not patch.
 */
import path from 'node:path';
import { MAILBOX_MESSAGES } from '../../core/bounds.js';
import { UserError } from '../../core/util/errors.js';
import { FileReadError, readRegularFile } from '../../machine/os/regular-file.js';
import { tail } from '../../machine/os/process.js';
import { sha256 } from './cache.js';
import { runGit, type GitDeps } from './source.js';

export interface PatchFile {
  /** As given (for messages). */
  file: string;
  sha256: string;
  content: string;
}

/**
 * Reads the patch files, naming the flag when one is missing or not a regular file (a FIFO would keep the
 * read, and git after it, waiting for ever), and refuses a mailbox of more messages than MAILBOX_MESSAGES
 * before anything is built.
 */
export async function readPatches(files: readonly string[], flag: string): Promise<PatchFile[]> {
  const patches: PatchFile[] = [];
  for (const file of files) {
    let content: string;
    try {
      content = await readRegularFile(file);
    } catch (e) {
      if (!(e instanceof FileReadError)) throw e;
      throw new UserError(`${flag} ${file}: ${e.reason}`);
    }
    const messages = isMailPatch(content) ? mailboxMessages(content) : 1;
    if (messages > MAILBOX_MESSAGES.max) {
      throw new UserError(
        `${flag} ${file}: a mailbox of ${messages} messages, more than ${MAILBOX_MESSAGES.max}: git am skips each message without a diff (a cover letter, a reply) one at a time. Save only the messages with the patches, or the patch attachments`,
      );
    }
    patches.push({ file, sha256: sha256(content), content });
  }
  return patches;
}

/** A mail-format patch (git format-patch, a mailing-list attachment) starts with mail headers. */
export function isMailPatch(text: string): boolean {
  const head = text.slice(0, 4096).split('\n');
  if (/^From [0-9a-f]{40} /.test(head[0] ?? '')) return true;
  const headers = head.slice(
    0,
    head.findIndex((l) => l.trim() === ''),
  );
  return headers.some((l) => /^Subject: /.test(l)) && headers.some((l) => /^From: /.test(l));
}

/**
 * The messages `git mailsplit -b` (so `git am`) finds in a mailbox: the first, and one more at every later
 * line git takes for a message's "From " line (isFromLine). Leading blank lines are skipped, as git does; a
 * first message that does not start with such a line (a bare mail) runs to the end of the file.
 */
export function mailboxMessages(text: string): number {
  const lines = text.replace(/^\s+/, '').split('\n');
  if (!isFromLine(lines[0]!)) return 1;
  let messages = 1;
  for (let i = 1; i < lines.length; i++) if (isFromLine(lines[i]!)) messages++;
  return messages;
}

/**
 * git's test for an mbox "From " line (is_from_line, builtin/mailsplit.c), on a line without its newline:
 * "From ", at least 20 characters with the newline, and at its last colon a time (d?dd:dd:dd) followed by a
 * year after 90. "From: Name" headers and a body line "From here on" are not message starts.
 */
function isFromLine(text: string): boolean {
  if (text.length + 1 < 20 || !text.startsWith('From ')) return false;
  // git looks back from the character before the last one (its line still has the newline).
  const colon = text.lastIndexOf(':', text.length - 2);
  if (colon < 4) return false;
  const digit = (i: number) => i >= 0 && i < text.length && text[i]! >= '0' && text[i]! <= '9';
  if (![colon - 4, colon - 2, colon - 1, colon + 1, colon + 2].every(digit)) return false;
  const year = /^\s*([+-]?\d+)/.exec(text.slice(colon + 3));
  return year !== null && Number(year[1]) > 90;
}

/** git am stopped at a message without a diff (a cover letter, a reply). */
function isEmptyMessage(res: { stdout: string; stderr: string }): boolean {
  return /^Patch is empty\.?$/m.test(`${res.stdout}\n${res.stderr}`);
}

/** The files git names in a failed apply or am, e.g. "error: patch failed: src/x.c:12". */
export function failingFiles(stderr: string): string[] {
  const files = new Set<string>();
  for (const re of [
    /^error: patch failed: (.+?):\d+$/gm,
    /^error: (.+?): (?:patch does not apply|does not exist in index|No such file or directory|already exists in (?:working directory|index))$/gm,
  ]) {
    for (const m of stderr.matchAll(re)) files.add(m[1]!);
  }
  return [...files];
}

/**
 * Applies patches in order in a checkout: `git am` for mail-format series (keeps their commits),
 * `git apply` otherwise. A patch that does not apply is named with the files that failed.
 */
export async function applyPatches(
  dir: string,
  patches: readonly PatchFile[],
  what: string,
  deps: GitDeps,
): Promise<void> {
  for (const patch of patches) {
    const mail = isMailPatch(patch.content);
    const args = mail
      ? ['am', '--quiet', '--no-gpg-sign', path.resolve(patch.file)]
      : ['apply', '--whitespace=nowarn', path.resolve(patch.file)];
    deps.logger.info(`${what}: applying ${patch.file} (git ${args[0]})`);
    // git am commits the series: it needs a committer, and none may be configured.
    const git = (gitArgs: string[]) =>
      runGit(
        gitArgs,
        deps,
        { cwd: dir },
        { GIT_COMMITTER_NAME: 'pgperf', GIT_COMMITTER_EMAIL: 'pgperf@localhost' },
      );
    const before = mail ? (await git(['rev-parse', 'HEAD'])).stdout.trim() : '';
    let res = await git(args);
    // A mailbox saved from the list holds the cover letter and replies too: messages without a diff are
    // skipped, as `git am --empty=drop` would (git 2.35+); the rest of the series goes on applying.
    // Bounded by the messages counted (readPatches refused a mailbox past MAILBOX_MESSAGES).
    const messages = mail ? mailboxMessages(patch.content) : 1;
    let skipped = 0;
    for (; mail && res.exitCode !== 0 && isEmptyMessage(res) && skipped < messages; skipped++) {
      res = await git(['am', '--quiet', '--skip']);
    }
    if (mail && res.exitCode !== 0 && isEmptyMessage(res)) {
      throw new UserError(
        `${what}: ${patch.file}: git am still stops at a message without a diff after skipping ${skipped}, the messages pgperf counted in it; split the mailbox, or save only the messages with the patches`,
      );
    }
    if (skipped > 0 && res.exitCode === 0) {
      if ((await git(['rev-parse', 'HEAD'])).stdout.trim() === before) {
        throw new UserError(
          `${what}: ${patch.file} holds no patch: its ${skipped} message(s) have no diff (a cover letter, replies). Save the messages with the patches, or the patch attachments`,
        );
      }
      deps.logger.info(`${what}: ${patch.file}: skipped ${skipped} message(s) without a diff`);
    }
    if (res.exitCode !== 0) {
      const files = failingFiles(res.stderr);
      throw new UserError(
        `${what}: patch ${patch.file} does not apply` +
          (files.length ? ` (failing: ${files.join(', ')})` : '') +
          `. git ${args[0]} said:\n${tail(res.stderr, 8)}\n` +
          'Rebase the patch onto this ref, or build the ref it was made for.',
      );
    }
  }
}
