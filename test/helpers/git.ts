/** git in a test repository, as a fixed test identity (commits need one; the machine may have none). */
import { execFileSync } from 'node:child_process';

const IDENTITY = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
};

/** A function running `git -C dir ...args` and returning its trimmed stdout (throws on failure). */
export function gitIn(dir: string): (...args: string[]) => string {
  return (...args) =>
    execFileSync('git', ['-C', dir, ...args], {
      encoding: 'utf8',
      env: { ...process.env, ...IDENTITY },
    }).trim();
}
