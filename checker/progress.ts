// A progress line on stderr for long runs: silent under 1 s; then on a terminal one line rewritten
// in place about once per second, and in a log (CI, a pipe) a plain line at most every 5 s.

import type { ProgressInfo } from './result.ts';

/** Where progress goes: `process.stderr`, or anything with `write` (tests). */
export interface ProgressSink {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

export interface ProgressReporter {
  /** Pass as `CheckOptions.onProgress`. */
  readonly onProgress: (info: ProgressInfo) => void;
  /** End the progress output (the final figures, if given, replace the last line). */
  finish(final?: ProgressInfo): void;
}

const QUIET_MS = 1000;
const PLAIN_EVERY_MS = 5000;
const CLEAR_LINE = '\r\x1b[2K';

/** `states 1,234,567 · 812k/s · queue 40,211 · depth 37` */
export function formatProgress(info: ProgressInfo): string {
  const n = (x: number): string => Math.round(x).toLocaleString('en-US');
  return `states ${n(info.states)} · ${formatRate(info.statesPerSecond)} · queue ${n(info.queue)} · depth ${info.depth}`;
}

function formatRate(perSecond: number): string {
  if (perSecond < 1000) return `${Math.round(perSecond)}/s`;
  if (perSecond < 1e6) return `${Math.round(perSecond / 1000)}k/s`;
  return `${(perSecond / 1e6).toFixed(1)}M/s`;
}

export function createProgressReporter(sink: ProgressSink = process.stderr): ProgressReporter {
  const tty = sink.isTTY === true;
  let printed = false;
  let lastPlainMs = Number.NEGATIVE_INFINITY;
  return {
    onProgress(info) {
      if (info.ms < QUIET_MS) return;
      if (tty) {
        sink.write(CLEAR_LINE + formatProgress(info));
        printed = true;
      } else if (info.ms - lastPlainMs >= PLAIN_EVERY_MS) {
        sink.write(`${formatProgress(info)}\n`);
        lastPlainMs = info.ms;
        printed = true;
      }
    },
    finish(final) {
      if (!printed) return;
      if (tty) sink.write(`${final ? CLEAR_LINE + formatProgress(final) : ''}\n`);
      else if (final) sink.write(`${formatProgress(final)}\n`);
      printed = false;
    },
  };
}
