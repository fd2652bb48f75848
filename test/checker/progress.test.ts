import { describe, expect, it } from 'vitest';
import { createProgressReporter, formatProgress, type ProgressInfo } from '../../checker/index.ts';

const info = (ms: number, states = ms * 1000): ProgressInfo => ({
  states,
  transitions: states * 3,
  queue: 40_211,
  depth: 37,
  ms,
  statesPerSecond: ms > 0 ? (states * 1000) / ms : 0,
});

function sink(isTTY: boolean) {
  const out: string[] = [];
  return { out, sink: { isTTY, write: (text: string) => out.push(text) } };
}

describe('progress line', () => {
  it('formats states, rate, queue and depth', () => {
    expect(formatProgress({ ...info(1000), states: 1_234_567, statesPerSecond: 812_345 })).toBe(
      'states 1,234,567 · 812k/s · queue 40,211 · depth 37',
    );
    expect(formatProgress({ ...info(1000), statesPerSecond: 2_460_000 })).toMatch(/ 2\.5M\/s /);
    expect(formatProgress({ ...info(1000), statesPerSecond: 950 })).toMatch(/ 950\/s /);
  });

  it('says nothing for a run under a second', () => {
    const { out, sink: s } = sink(true);
    const reporter = createProgressReporter(s);
    reporter.onProgress(info(400));
    reporter.onProgress(info(999));
    reporter.finish(info(1200));
    expect(out).toEqual([]);
  });

  it('on a terminal: rewrites one line in place, then ends it', () => {
    const { out, sink: s } = sink(true);
    const reporter = createProgressReporter(s);
    for (const ms of [500, 1000, 2000, 3000]) reporter.onProgress(info(ms));
    reporter.finish(info(3500));
    expect(out).toHaveLength(4);
    for (const text of out.slice(0, 3)) expect(text.startsWith('\r\x1b[2Kstates ')).toBe(true);
    expect(out.slice(0, 3).every((t) => !t.includes('\n'))).toBe(true);
    expect(out[3]).toBe(`\r\x1b[2K${formatProgress(info(3500))}\n`);
  });

  it('in a log: plain lines at most every 5 s', () => {
    const { out, sink: s } = sink(false);
    const reporter = createProgressReporter(s);
    for (let ms = 1000; ms <= 12_000; ms += 1000) reporter.onProgress(info(ms));
    expect(out).toEqual([1000, 6000, 11_000].map((ms) => `${formatProgress(info(ms))}\n`));
    reporter.finish(info(12_500));
    expect(out.at(-1)).toBe(`${formatProgress(info(12_500))}\n`);
    expect(out.every((t) => !t.includes('\x1b'))).toBe(true);
  });
});
