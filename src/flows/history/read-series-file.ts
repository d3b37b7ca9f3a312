import { readFile } from 'node:fs/promises';
import { UserError, errorMessage } from '../../core/util/errors.js';

/** A series read from a file: the values, oldest first, and the 1-based file line each came from. */
export interface SeriesFile {
  file: string;
  values: number[];
  lines: number[];
}

/**
 * Reads a file of numbers, one per line, oldest first (blank lines and lines starting with # are
 * skipped), for `pgperf changepoints`. Unlike `pgperf stat` a series cannot skip a value, so anything that
 * is not a finite number is a UserError naming the file, the line and the value.
 */
export async function readSeriesFile(file: string): Promise<SeriesFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read ${file}: ${errorMessage(e)}`);
  }
  return parseSeries(file, text);
}

/** The pure half of readSeriesFile. */
export function parseSeries(file: string, text: string): SeriesFile {
  const values: number[] = [];
  const lines: number[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const token = line.trim();
    if (token === '' || token.startsWith('#')) return;
    const value = Number(token);
    if (!Number.isFinite(value)) {
      throw new UserError(
        `${file}:${i + 1}: '${token}' is not a finite number; expected one number per line, oldest first`,
      );
    }
    values.push(value);
    lines.push(i + 1);
  });
  return { file, values, lines };
}
