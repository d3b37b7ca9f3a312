/** Sizes for people: "512 B", "7.8 kB", "1.87 MB", "50 GB" (binary multiples, as the kernel counts them). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  const digits = i === 0 ? 0 : Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
  // Three significant digits, trailing zeros dropped: "50 GB", not "50.0 GB".
  return `${Number(v.toFixed(digits))} ${units[i]}`;
}
