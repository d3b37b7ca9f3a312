/**
 * Output into a pipe whose reader has gone, as in `pgperf run --help | head -1` (or a runner whose log reader
 * died, for the Action): the write fails with EPIPE,
 * which Node reports as an 'error' event on process.stdout (or stderr); with no listener that event kills
 * pgperf with a stack trace. Here a closed pipe only ends the output: what would still be written to that
 * stream is dropped, and the command goes on to its own end and exit code (help exits 0; a run finishes,
 * keeps its results file and stops its servers, as it would with its output going nowhere). Any other
 * stream error stays what it was: an uncaught error.
 */

const watched = new WeakSet<NodeJS.WritableStream>();

/** Lets `streams` (default stdout and stderr) end quietly when their reader closes; once per stream. */
export function endOutputOnClosedPipe(
  streams: NodeJS.WriteStream[] = [process.stdout, process.stderr],
): void {
  for (const stream of streams) {
    if (watched.has(stream)) continue;
    watched.add(stream);
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      stream.write = (() => true) as typeof stream.write;
    });
  }
}
