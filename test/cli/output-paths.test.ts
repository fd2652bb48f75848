// Output paths are checked before the run (issue 11.3): a long check must not end in "cannot write".
import { describe, it } from 'vitest';
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
