/** git in a test repository, as a fixed test identity (commits need one; the machine may have none). */
import { execFileSync } from 'node:child_process';

/** This environment with a fixed identity and no system or user git configuration. */
export const TEST_GIT_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
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
      env: TEST_GIT_ENV,
    }).trim();
}
