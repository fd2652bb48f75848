// Output paths are checked before the run (issue 11.3): a long check must not end in "cannot write";
// an image name for a text diagram and a trace replayed on another program are said so.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { arefcheck, expectUsageError } from './spawn.ts';

describe('output paths are checked before a run', () => {
  it('--sarif into a folder that does not exist: exit 2 at once, nothing verified', () => {
    expectUsageError(arefcheck('verify', 'examples/double-buffer.aref', '--sarif', '/nonexistent-arefcheck/x.sarif'), /--sarif: cannot write '\/nonexistent-arefcheck\/x\.sarif' \(ENOENT\)/);
  });

  it('--trace-out under a file: exit 2 at once', () => {
    expectUsageError(arefcheck('verify', 'examples/double-buffer.aref', '--trace-out', 'package.json/traces'), /--trace-out: cannot write into 'package\.json\/traces' \(ENOTDIR\)/);
  });

  it('--sarif-root that does not exist: exit 2', () => {
    expectUsageError(arefcheck('verify', 'examples/double-buffer.aref', '--sarif', '/tmp/x.sarif', '--sarif-root', 'no-such-root'), /--sarif-root: no folder 'no-such-root'/);
  });
});

describe('names that do not fit', () => {
  it('diagram -o x.png refuses: the diagrams are text', () => {
    expectUsageError(arefcheck('diagram', 'examples/double-buffer.aref', '-o', 'x.png'), /diagram writes text .* not PNG/);
  });

  it('replay warns when the trace was recorded on another program', () => {
    const dir = mkdtempSync(join(tmpdir(), 'arefcheck-replay-'));
    const made = arefcheck('verify', 'examples/early-release-mbar.aref', '--trace-out', dir);
    expect(made.status).toBe(1);
    const trace = join(dir, 'early-release-mbar.mbarrier.race.json');
    const other = arefcheck('replay', trace, 'examples/gallery/m6-early-release.aref');
    expect(other.stderr).toMatch(/warning: .* was recorded on examples\/early-release-mbar\.aref, not on examples\/gallery\/m6-early-release\.aref/);
    const same = arefcheck('replay', trace, 'examples/early-release-mbar.aref');
    expect(same.stderr).not.toMatch(/warning/);
  });
});
