// The pipeline family's bounds are the .aref language's (issue 11.3): the largest program the
// command accepts validates and prints back, and one past each bound is refused at the flag.
import { describe, expect, it } from 'vitest';
import { parseProgramText } from '../../src/lang/load.ts';
import { printProgram } from '../../src/lang/printer.ts';
import { PIPELINE_MAX, pipelineProgram } from '../../src/pipeline.ts';
import { arefcheck } from './spawn.ts';

describe('pipeline bounds', () => {
  it('the largest depth, consumers and bytes give a program the language accepts and prints back', () => {
    const p = pipelineProgram({ depth: PIPELINE_MAX.depth, pending: 1, consumers: PIPELINE_MAX.consumers, iterations: 2, bytes: PIPELINE_MAX.bytes, level: 'aref' });
    const text = printProgram(p);
    expect(printProgram(parseProgramText(text, 'max.aref'))).toBe(text);
    const lowered = pipelineProgram({ depth: 2, pending: 1, consumers: PIPELINE_MAX.consumers, iterations: 2, bytes: PIPELINE_MAX.bytes, level: 'mbarrier' });
    expect(() => parseProgramText(printProgram(lowered), 'max-mbar.aref')).not.toThrow();
  });

  it.each([
    ['--depth', `${PIPELINE_MAX.depth + 1}`, '1..4096'],
    ['--consumers', `${PIPELINE_MAX.consumers + 1}`, '1..7'],
    ['--bytes', `${PIPELINE_MAX.bytes + 1}`, '1..1048575'],
  ])('%s %s is refused with the range, exit 2', (flag, value, range) => {
    const args = { '--depth': '2', '--pending': '0', '--consumers': '1', '--iterations': '2', [flag]: value };
    const r = arefcheck('pipeline', ...Object.entries(args).flat(), '--print');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${flag} expects an integer in ${range}`);
  });

  it('the library refuses the same', () => {
    expect(() => pipelineProgram({ depth: PIPELINE_MAX.depth + 1, pending: 0, consumers: 1, iterations: 1, level: 'aref' })).toThrow(/depth must be an integer in 1\.\.4096/);
    expect(() => pipelineProgram({ depth: 2, pending: 0, consumers: 8, iterations: 1, level: 'aref' })).toThrow(/consumers must be an integer in 1\.\.7/);
  });
});
