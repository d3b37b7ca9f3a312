/**
 * A user error: bad input or environment that the user can fix. Its message names what is wrong and
 * how to fix it; it is printed without a stack. Anything else that is thrown is a bug.
 */
export class UserError extends Error {
  /**
   * The exit code the CLI ends with (default 2, "usage or input error: nothing was measured"); 3 when the
   * run stopped after measuring and its samples are kept.
   */
  readonly exitCode?: number;

  constructor(message: string, options: { exitCode?: number } = {}) {
    super(message);
    this.name = 'UserError';
    if (options.exitCode !== undefined) this.exitCode = options.exitCode;
  }
}

/** The message of anything thrown, also non-Error throws. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === 'string') return e;
  try {
    return JSON.stringify(e);
  } catch {
    return String(e);
  }
}
