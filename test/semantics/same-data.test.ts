// Two generic writes of the same data need no order between them (PTX does not require
// data-race freedom: racing stores of the same bytes leave those bytes). Triton's warp-specialize
// state word is stored by all 128 threads of the default warpgroup; when the lifter splits that
// warpgroup into roles (thread 0 also initialises the barriers), the stores come from two roles.
// Different data, a read, or a TMA copy in between still race.
import { describe, expect, it } from 'vitest';
import { parseArefFile } from '../../src/lang/index.ts';
import { verify } from '../../src/api.ts';
import { oracleCheck } from '../oracle/explore.ts';

const program = (a: string, b: string): string => `buffer S[1] bytes 8
role p warps 1:
  ${a}
role q warps 1:
  ${b}
`;

function kinds(text: string, reduction: boolean): string[] {
  const report = verify(parseArefFile(text, 'same-data.aref'), { reduction });
  return [...new Set(report.violations.map((v) => v.kind))].sort();
}

describe('writes of the same data', () => {
  it.each([
    ['write S[0], 5', 'write S[0], 5', []],
    ['write S[0], 5\n  write S[0], 5', 'write S[0], 5', []],
    ['write S[0], 5', 'write S[0], 6', ['race']],
    ['write S[0]', 'write S[0]', ['race']],
    ['write S[0], 5', 'read S[0]', ['race']],
  ] as const)('%s | %s → %j', (a, b, expected) => {
    const text = program(a, b);
    // the readable rules, the packed successor generation and the independent oracle agree
    expect(kinds(text, true)).toEqual(expected);
    expect(kinds(text, false)).toEqual(expected);
    expect([...oracleCheck(parseArefFile(text, 'same-data.aref')).kinds.keys()].sort()).toEqual(expected);
  });

  it('names the write-after-write when the data differ', () => {
    const report = verify(parseArefFile(program('write S[0], 5', 'write S[0], 6'), 'd.aref'), {});
    expect(report.violations[0]?.message).toMatch(/is not ordered after the previous write \(write-after-write\)/);
  });
});
