/**
 * An exclusive lock file shared between processes (and hosts on a shared file system): it holds its
 * owner's pid, host and since when, a lock of a dead owner on this host is stale and taken over, waiters
 * say for whom they wait, and once they hold it, for whom and how long they waited. The build cache takes
 * one per slot and per git mirror.
 */
import { randomUUID } from 'node:crypto';
import { link, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { UserError, errorMessage } from '../../core/util/errors.js';
import { formatDuration } from '../../core/util/duration.js';
import type { Logger } from '../../core/util/logger.js';
import { readRegularFile } from './regular-file.js';
import { makeDirectory } from './writable-dir.js';

/** What a lock file holds: who holds the lock, and since when (ISO). */
export interface LockOwner {
  pid: number;
  host: string;
  since: string;
}

export interface LockOptions {
  logger: Logger;
  /** Says what is locked in the "waiting" message. */
  what: string;
  signal?: AbortSignal;
  pollMs?: number;
}

export type ReleaseLock = () => Promise<void>;

/** A lock taken: its release, and, when it was not free at once, whom the taker waited for and how long. */
export interface HeldLock {
  release: ReleaseLock;
  waited?: LockWait;
}

export interface LockWait {
  /** The owner found holding the lock at the first attempt. */
  owner: LockOwner;
  seconds: number;
}

/**
 * Takes an exclusive lock file (holding the owner's pid, host and since when). A lock whose owner is a
 * dead process on this host is stale and taken over; otherwise waits, saying for whom.
 */
export async function acquireLock(file: string, options: LockOptions): Promise<HeldLock> {
  const started = Date.now();
  let heldBy: LockOwner | undefined;
  while (true) {
    options.signal?.throwIfAborted();
    const taken = await takeLock(file, options.logger);
    if (typeof taken === 'function') {
      return {
        release: taken,
        ...(heldBy ? { waited: { owner: heldBy, seconds: (Date.now() - started) / 1000 } } : {}),
      };
    }
    if (!heldBy) {
      options.logger.info(`waiting for ${options.what}: locked by ${describeOwner(taken)}: ${file}`);
      heldBy = taken;
    }
    await sleep(options.pollMs ?? 1000, options.signal);
  }
}

/** "waited 21m26s for pid 1234 on runner-1 (holding it since 08:12 UTC)": what a wait was, for log lines. */
export function describeWait(wait: LockWait, now = new Date()): string {
  const waited = wait.seconds < 10 ? `${wait.seconds.toFixed(1)}s` : formatDuration(wait.seconds);
  return `waited ${waited} for ${describeOwner(wait.owner, now)}`;
}

/**
 * "pid 1234 on runner-1 (holding it since 08:12 UTC)"; the date too when the lock was taken more than a
 * day before `now`, the text as written when it is not a date.
 */
export function describeOwner(owner: LockOwner, now = new Date()): string {
  const since = Date.parse(owner.since);
  const when = Number.isNaN(since)
    ? owner.since
    : new Date(since)
        .toISOString()
        .slice(now.getTime() - since < 24 * 3600 * 1000 ? 11 : 0, 16)
        .replace('T', ' ') + ' UTC';
  return `pid ${owner.pid} on ${owner.host} (holding it since ${when})`;
}

/** Takes the lock if nobody alive holds it; undefined otherwise. */
export async function tryLock(file: string, logger: Logger): Promise<ReleaseLock | undefined> {
  const taken = await takeLock(file, logger);
  return typeof taken === 'function' ? taken : undefined;
}

/**
 * How often one attempt may find the lock released or stale and try again before it gives up: each retry
 * follows a change on disk (a release, a stale lock removed), so a lock file that cannot be removed (a
 * directory where we may create but not unlink others' files) ends with an error, not a busy loop.
 */
const MAX_TAKEOVERS = 20;

/** One attempt: the release function, or the live owner that holds the lock. */
async function takeLock(file: string, logger: Logger): Promise<ReleaseLock | LockOwner> {
  await makeDirectory(path.dirname(file), { public: true });
  const me: LockOwner = { pid: process.pid, host: os.hostname(), since: new Date().toISOString() };
  for (let tries = 1; ; tries++) {
    if (tries > MAX_TAKEOVERS) {
      throw new UserError(
        `cannot take the lock ${file}: it was released or stale ${MAX_TAKEOVERS} times in a row and still in the way (can it be removed?); remove it if no pgperf is running`,
      );
    }
    // Written to a private file first and then hard-linked into place (fails with EEXIST when taken), so
    // a lock file always holds its owner and is never seen empty. The name is unique per attempt: two
    // attempts of one process (concurrent builds of the same key) must not unlink each other's file.
    const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
    await writeFile(tmp, JSON.stringify(me), { mode: 0o644 });
    let taken = false;
    try {
      await link(tmp, file);
      taken = true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      await unlink(tmp).catch(() => {});
    }
    if (taken) {
      return async () => {
        const owner = await readOwner(file);
        if (typeof owner === 'object' && owner.pid === me.pid && owner.host === me.host) {
          await unlink(file).catch(() => {});
        }
      };
    }
    const owner = await readOwner(file);
    if (owner === 'gone') continue; // released meanwhile
    if (owner === undefined || (owner.host === me.host && !processAlive(owner.pid))) {
      // Stale (its owner died) or unreadable: take it over.
      logger.debug(`removing stale lock ${file} (${owner ? `pid ${owner.pid} is gone` : 'unreadable'})`);
      await unlink(file).catch(() => {});
      continue;
    }
    return owner;
  }
}

/** The lock's owner; 'gone' when there is no lock file; undefined when it cannot be read. */
async function readOwner(file: string): Promise<LockOwner | 'gone' | undefined> {
  try {
    // A regular file only (a FIFO planted as the lock would wait for ever): anything else is unreadable.
    const owner = JSON.parse(await readRegularFile(file)) as Partial<LockOwner>;
    if (typeof owner.pid !== 'number' || typeof owner.host !== 'string') return undefined;
    return { pid: owner.pid, host: owner.host, since: String(owner.since) };
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : undefined;
  }
}

/** Whether a process with this pid exists (EPERM: it does, owned by someone else). */
export function processAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error(errorMessage(signal?.reason)));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
