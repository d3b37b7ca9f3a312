/**
 * A separate writer process for the store concurrency tests:
 *   node --import tsx store-writer.ts SPEC N COUNT
 * Opens the store SPEC (a directory or a postgresql:// URL) as pgperf does and saves COUNT variants of
 * the fixture results document, each its own run (started N*1000+i minutes after a fixed instant). Prints the
 * saved ids as JSON; a failure goes to stderr with exit code 1.
 */
import os from 'node:os';
import { openStore } from '../../src/store/open/open-store.js';
import { errorMessage } from '../../src/core/util/errors.js';
import { fixtureVariant, minutesAfter, readFixture } from '../../testkit/store-fixture.js';

const [spec, prefix, countText] = process.argv.slice(2);

try {
  const store = await openStore(spec, {
    home: os.homedir(),
    warn: (m) => process.stderr.write(`warning: ${m}\n`),
    write: true,
  });
  const ids: string[] = [];
  // Read after the store opened: a store that cannot be opened is the error, whatever else is readable.
  const base = readFixture();
  try {
    for (let i = 0; i < Number(countText); i++) {
      const saved = await store.save(
        fixtureVariant(base, { startedAt: minutesAfter(Number(prefix) * 1000 + i) }),
      );
      ids.push(saved.id);
    }
  } finally {
    await store.close();
  }
  process.stdout.write(`${JSON.stringify(ids)}\n`);
} catch (e) {
  process.stderr.write(`${errorMessage(e)}\n`);
  process.exitCode = 1;
}
