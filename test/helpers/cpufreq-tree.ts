/** A fake sysfs tree with cpufreq for two CPUs (this VM has none), and reading its governors back. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** CPUs 0 and 1 online, governors powersave and schedutil, performance/powersave/schedutil offered. */
export async function cpufreqTree(dir: string): Promise<void> {
  const cpu = path.join(dir, 'sys/devices/system/cpu');
  await mkdir(cpu, { recursive: true });
  await writeFile(path.join(cpu, 'online'), '0-1\n');
  for (const [n, gov] of [
    [0, 'powersave'],
    [1, 'schedutil'],
  ] as const) {
    await mkdir(path.join(cpu, `cpu${n}/cpufreq`), { recursive: true });
    await writeFile(path.join(cpu, `cpu${n}/cpufreq/scaling_governor`), `${gov}\n`);
    await writeFile(
      path.join(cpu, `cpu${n}/cpufreq/scaling_available_governors`),
      'performance powersave schedutil\n',
    );
  }
}

/** The governors of CPUs 0 and 1 in a tree made by cpufreqTree. */
export function governors(dir: string): Promise<string[]> {
  return Promise.all(
    [0, 1].map(async (n) =>
      (
        await readFile(path.join(dir, `sys/devices/system/cpu/cpu${n}/cpufreq/scaling_governor`), 'utf8')
      ).trim(),
    ),
  );
}
