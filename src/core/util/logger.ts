/**
 * The logger domain code receives. The CLI prints to the terminal; the action adapter maps it to
 * @actions/core (groups, warnings as annotations).
 */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  debug(message: string): void;
  /** Runs fn inside a named, collapsible phase. */
  group<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

export interface ConsoleLoggerOptions {
  verbose?: boolean;
  /** Where lines go; stderr by default so stdout stays for results. */
  write?: (line: string) => void;
}

export function consoleLogger(options: ConsoleLoggerOptions = {}): Logger {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  return {
    info: (m) => write(m),
    warn: (m) => write(`warning: ${m}`),
    error: (m) => write(`error: ${m}`),
    debug: (m) => {
      if (options.verbose) write(`debug: ${m}`);
    },
    async group(name, fn) {
      write(`== ${name}`);
      return fn();
    },
  };
}

/** A logger that keeps lines in memory (tests, and capturing warnings for reports). */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, ...consoleLogger({ verbose: true, write: (l) => lines.push(l) }) };
}
