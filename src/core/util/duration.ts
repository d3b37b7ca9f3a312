/** "45m", "1h", "1.5h", "900s" or "900" as seconds; undefined when the text is not such a duration. */
export function parseDurationS(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(s|m|min|h)?$/.exec(text.trim());
  if (!m) return undefined;
  const unit = { s: 1, m: 60, min: 60, h: 3600 }[(m[2] ?? 's') as 's' | 'm' | 'min' | 'h'];
  const seconds = Number(m[1]) * unit;
  return seconds > 0 ? seconds : undefined;
}

/** 42s, 3m12s, 1h05m: a duration as progress lines and cost lines print it. */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
