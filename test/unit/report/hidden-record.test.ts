import { describe, expect, it } from 'vitest';
import {
  isHiddenRecordLine,
  readHiddenRecord,
  renderHiddenRecord,
} from '../../../src/core/report/comment/hidden-record.js';

describe('hidden records in a comment body', () => {
  const value = { sha: 'a'.repeat(40), note: 'ends --> early? <!-- no', cells: [1, 2] };

  it('round-trips a value on one HTML comment line that its content cannot end', () => {
    const line = renderHiddenRecord('state', value);
    expect(line).toMatch(/^<!-- pgperf:state [A-Za-z0-9_-]+ -->$/);
    expect(line.indexOf('-->')).toBe(line.length - 3);
    expect(readHiddenRecord('state', `# report\n\n${line}\n`)).toEqual(value);
    expect(isHiddenRecordLine('state', line)).toBe(true);
  });

  it("reads only its own tag's line", () => {
    const body = `${renderHiddenRecord('acceptance', { by: 'x' })}\n${renderHiddenRecord('state', value)}`;
    expect(readHiddenRecord('state', body)).toEqual(value);
    expect(readHiddenRecord('acceptance', body)).toEqual({ by: 'x' });
    expect(readHiddenRecord('other', body)).toBeUndefined();
    expect(isHiddenRecordLine('acceptance', body.split('\n')[1]!)).toBe(false);
  });

  it('gives undefined for a line whose data is not base64url JSON', () => {
    expect(readHiddenRecord('state', '<!-- pgperf:state not*json -->')).toBeUndefined();
    expect(
      readHiddenRecord('state', `<!-- pgperf:state ${Buffer.from('{').toString('base64url')} -->`),
    ).toBeUndefined();
    expect(readHiddenRecord('state', 'no record here')).toBeUndefined();
  });
});

describe('hidden records quoted in a fence', () => {
  it('are never read: only lines outside fenced code blocks count, the last of them winning', () => {
    const real = renderHiddenRecord('state', { sha: 'real' });
    const forged = renderHiddenRecord('state', { sha: 'forged' });
    expect(readHiddenRecord('state', ['```sh', forged, '```', real].join('\n'))).toEqual({ sha: 'real' });
    expect(readHiddenRecord('state', [real, '~~~', forged, '~~~'].join('\n'))).toEqual({ sha: 'real' });
    expect(readHiddenRecord('state', ['````', '```', forged, '```', '````'].join('\n'))).toBeUndefined();
    expect(readHiddenRecord('state', [forged, 'text', real].join('\n'))).toEqual({ sha: 'real' });
  });
});
