// Unit tests for every rule of both levels, driven through small programs and a
// deterministic scheduler (always the first enabled action unless a test says otherwise).
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/diag.ts';
import { parseAref, parseArefFile } from '../../src/lang/index.ts';
import {
  blockedReasons,
  cloneState,
  enabledActions,
  executeAction,
  isFinished,
  start,
  type Action,
  type Machine,
  type MachineState,
} from '../../semantics/index.ts';

function boot(text: string, literal = false): { m: Machine; s: MachineState } {
  const { machine, state } = start(parseArefFile(text, 'test.aref'), { literal });
  return { m: machine, s: state };
}

/** Without static validation: the run-time rules must catch what the validator would. */
function bootUnchecked(text: string): { m: Machine; s: MachineState } {
  const { machine, state } = start(parseAref(text, 'test.aref'));
  return { m: machine, s: state };
}

/** Run to the end, preferring actions by `pick` (default: the first enabled). */
function runToEnd(m: Machine, s: MachineState, pick: (as: Action[]) => Action = (as) => as[0]!, steps = 10_000): MachineState {
  for (let i = 0; i < steps; i++) {
    const as = enabledActions(m, s);
    if (as.length === 0) return s;
    executeAction(m, s, pick(as));
  }
  throw new Error('did not end');
}

const roleFirst = (as: Action[]): Action => as.find((a) => a.kind === 'role') ?? as[0]!;
const asyncFirst = (as: Action[]): Action => as.find((a) => a.kind !== 'role') ?? as[0]!;

describe('level 1: aref rules', () => {
  it('put needs E = 1, get needs F = 1, consumed makes the slot empty again', () => {
    const { m, s } = boot(`aref A[1]
role p warps 1:
  put A[0], 7
  put A[0], 8
role c warps 1:
  get A[0] expect 7
  consumed A[0]
  get A[0] expect 8
  consumed A[0]
`);
    // the producer's second put is blocked until the consumer has consumed
    executeAction(m, s, { kind: 'role', role: 0 });
    expect(s.slotValue[0]).toBe(7);
    expect([s.arefF[0], s.arefE[0]]).toEqual([1, 0]);
    expect(enabledActions(m, s)).toEqual([{ kind: 'role', role: 1 }]);
    expect(blockedReasons(m, s)[0]).toMatch(/put A\[0\] needs E = 1; σ\(A\[0\]\) = ⟨7, 1, 0⟩/);
    executeAction(m, s, { kind: 'role', role: 1 }); // get
    expect([s.arefF[0], s.arefE[0]]).toEqual([0, 0]);
    expect(enabledActions(m, s)).toEqual([{ kind: 'role', role: 1 }]);
    executeAction(m, s, { kind: 'role', role: 1 }); // consumed
    expect([s.arefF[0], s.arefE[0]]).toEqual([0, 1]);
    const end = runToEnd(m, s);
    expect(isFinished(m, end)).toBe(true);
  });

  it('consumed on a slot that is not borrowed is a protocol error in strict mode', () => {
    const text = `aref A[1]
role c warps 1:
  consumed A[0]
`;
    const strict = boot(text);
    executeAction(strict.m, strict.s, { kind: 'role', role: 0 });
    expect(strict.s.violation?.kind).toBe('protocol');
    expect(strict.s.violation?.message).toMatch(/not borrowed/);
    expect(strict.s.violation?.loc?.line).toBe(3);
    // literal mode follows the paper's rule: F := 0, E := 1, and the run goes on
    const literal = boot(text, true);
    executeAction(literal.m, literal.s, { kind: 'role', role: 0 });
    expect(literal.s.violation).toBeUndefined();
    expect(isFinished(literal.m, literal.s)).toBe(true);
  });

  it('literal mode lets the producer overwrite unread data: the FIFO check sees it', () => {
    const text = `aref A[1]
role p warps 1:
  put A[0], 1
  put A[0], 2
role c warps 1:
  consumed A[0]
  get A[0] expect 1
`;
    const { m, s } = boot(text, true);
    const end = runToEnd(m, s, roleFirst);
    expect(end.violation?.kind).toBe('fifo');
  });

  it('at the end every slot must be empty again: a missing last consumed is reported', () => {
    const text = (release: boolean): string => `aref A[2]
role p warps 1:
  put A[0], 0
  put A[1], 1
role c warps 1:
  get A[0] expect 0
  consumed A[0]
  get A[1] expect 1
${release ? '  consumed A[1]\n' : ''}`;
    const bad = boot(text(false));
    const end = runToEnd(bad.m, bad.s);
    expect(end.violation?.kind).toBe('protocol');
    expect(end.violation?.message).toMatch(/at the end A\[1\] is still borrowed: a consumed is missing/);
    const good = boot(text(true));
    expect(isFinished(good.m, runToEnd(good.m, good.s))).toBe(true);
  });

  it('get reports a FIFO violation when the slot holds another value', () => {
    const { m, s } = boot(`aref A[1]
role p warps 1:
  put A[0], 3
role c warps 1:
  get A[0] expect 4
`);
    const end = runToEnd(m, s);
    expect(end.violation?.kind).toBe('fifo');
    expect(end.violation?.message).toMatch(/expecting value 4 but it holds value 3/);
  });

  it('releasing a slot while a wgmma still reads it lets the next put race', () => {
    const { m, s } = boot(`aref A[1]
role p warps 1:
  put A[0], 0
  put A[0], 1
role c warps 1:
  get A[0]
  mma.issue A[0]
  consumed A[0]
  wgmma.wait 0
`);
    const end = runToEnd(m, s, roleFirst);
    expect(end.violation?.kind).toBe('race');
    expect(end.violation?.message).toMatch(/still reading it/);
  });
});

describe('level 2: mbarrier rules', () => {
  it('a fresh barrier passes a wait on parity 1 at once, and blocks parity 0', () => {
    const { m, s } = boot(`mbarrier b[1] count 1
role w warps 1:
  wait b[0], 1
  wait b[0], 0
`);
    executeAction(m, s, { kind: 'role', role: 0 });
    expect(s.roles[0]!.pc).toBe(1);
    expect(enabledActions(m, s)).toEqual([]);
    expect(blockedReasons(m, s)[0]).toMatch(/waits b\[0\] parity 0; b\[0\] is in phase 0 with 1 arrival pending/);
  });

  it('a phase completes only at pending = 0 and tx exactly 0; excess bytes never complete', () => {
    const { m, s } = boot(`mbarrier b[1] count 1
role p warps 1:
  arrive.expect_tx b[0], 16
  complete_tx b[0], 32
role w warps 1:
  wait b[0], 0
`);
    executeAction(m, s, { kind: 'role', role: 0 });
    expect(s.barriers[0]).toMatchObject({ phase: 0, pending: 0, tx: 16 });
    executeAction(m, s, { kind: 'role', role: 0 });
    expect(s.barriers[0]).toMatchObject({ phase: 0, pending: 0, tx: -16 });
    expect(enabledActions(m, s)).toEqual([]);
    expect(isFinished(m, s)).toBe(false);
    expect(blockedReasons(m, s)[0]).toMatch(/16 bytes more than expected/);
  });

  it('exactly the expected bytes complete the phase and wake the waiter', () => {
    const { m, s } = boot(`mbarrier b[1] count 1
role p warps 1:
  arrive.expect_tx b[0], 16
  complete_tx b[0], 16
role w warps 1:
  wait b[0], 0
`);
    const end = runToEnd(m, s);
    expect(isFinished(m, end)).toBe(true);
    expect(end.barriers[0]).toMatchObject({ phase: 1, pending: 1, tx: 0 });
  });

  it('a waiter that falls two phases behind the phase its parity means is a protocol error (missed phase), not a hang', () => {
    const { m, s } = boot(`mbarrier b[1] count 1
role fast warps 1:
  arrive b[0]
  wait b[0], 0
  arrive b[0]
role slow warps 1:
  wait b[0], 0
`);
    const end = runToEnd(m, s, roleFirst);
    expect(end.barriers[0]!.phase).toBe(2);
    expect(end.violation?.kind).toBe('protocol');
    expect(end.violation?.message).toMatch(/slow: wait on b\[0\] with parity 0 missed its phase: the barrier is in phase 2/);
  });

  it('the phase a wait means comes from what the waiter knows: a waiter told of phase 1 through another barrier means phase 2', () => {
    // slow learns of b's completions only through c: its parity-0 wait then means phase 2, complete once fast is done: it passes (no miss)
    const { m, s } = boot(`mbarrier b[1] count 1
mbarrier c[1] count 1
role fast warps 1:
  arrive b[0]
  wait b[0], 0
  arrive b[0]
  wait b[0], 1
  arrive c[0]
  arrive b[0]
role slow warps 1:
  wait c[0], 0
  wait b[0], 0
`);
    const end = runToEnd(m, s, (as) => as.find((a) => a.kind === 'role' && a.role === 0) ?? as[0]!);
    expect(end.violation).toBeUndefined();
    expect(isFinished(m, end)).toBe(true);
  });

  it('a waiter that knows nothing and waits parity 1 means the phase before phase 0: it passes a fresh barrier, and misses once two phases went by', () => {
    const { m, s } = boot(`mbarrier b[1] count 1
role fast warps 1:
  arrive b[0]
role slow warps 1:
  wait b[0], 1
`);
    const passed = runToEnd(m, cloneState(s), (as) => as.find((a) => a.kind === 'role' && a.role === 1) ?? as[0]!);
    expect(passed.violation).toBeUndefined();
    const late = runToEnd(m, cloneState(s), roleFirst);
    expect(late.violation?.message).toMatch(/missed its phase/);
  });

  it('an arrive in the next phase with no wait in between is a protocol error (missing wait)', () => {
    const { m, s } = boot(`mbarrier b[1] count 1
role p warps 1:
  arrive b[0]
  arrive b[0]
`);
    const end = runToEnd(m, s);
    expect(end.violation?.kind).toBe('protocol');
    expect(end.violation?.message).toMatch(/Missing wait/);
  });

  it.each([
    ['double init', `mbarrier b[1] count 1\nrole p warps 1:\n  init b[0], 1\n`, /already initialised/],
    ['arrive on an uninitialised barrier', `mbarrier b[1]\nrole p warps 1:\n  arrive b[0]\n`, /not initialised/],
    ['wait on an uninitialised barrier', `mbarrier b[1]\nrole p warps 1:\n  wait b[0], 1\n`, /not initialised/],
    ['arrive past the expected count', `mbarrier b[1] count 2\nrole p warps 1:\n  arrive b[0], 3\n`, /past the expected count/],
    ['tx-count out of range', `mbarrier b[1] count 1\nrole p warps 1:\n  expect_tx b[0], 1048576\n`, /tx-count .* out of range/],
    ['init count out of range', `mbarrier b[1]\nrole p warps 1:\n  init b[0], 1048576\n`, /out of range/],
  ])('%s is a protocol error', (_name, text, message) => {
    const { m, s } = bootUnchecked(text);
    const end = runToEnd(m, s);
    expect(end.violation?.kind).toBe('protocol');
    expect(end.violation?.message).toMatch(message);
  });

  it('init then use: an uninitialised barrier becomes usable after init, inval makes it unusable', () => {
    const { m, s } = boot(`mbarrier b[1]
role p warps 1:
  init b[0], 1
  arrive b[0]
  wait b[0], 0
  inval b[0]
  arrive b[0]
`);
    const end = runToEnd(m, s);
    expect(end.violation?.message).toMatch(/arrive on b\[0\], which is not initialised/);
  });
});

describe('level 2: async units', () => {
  const tmaProgram = (consumerWaits: boolean): string => `buffer S[1] bytes 64
mbarrier full[1] count 1
role p warps 1:
  arrive.expect_tx full[0], 64
  tma.load S[0] -> full[0], 64 value 5
role c warps 1:
${consumerWaits ? '  wait full[0], 0\n' : ''}  read S[0] expect 5
`;

  it('a TMA lands later, writes its value and completes the phase through complete_tx', () => {
    const { m, s } = boot(tmaProgram(true));
    const end = runToEnd(m, s, roleFirst);
    expect(isFinished(m, end)).toBe(true);
    expect(end.slotValue[1 - 1]).toBe(5);
    expect(end.barriers[0]).toMatchObject({ phase: 1, tx: 0 });
  });

  it('reading a TMA destination without waiting on its barrier is a race', () => {
    const { m, s } = boot(tmaProgram(false));
    // let the copy land first: the read is still not ordered after the write
    const end = runToEnd(m, s, asyncFirst);
    expect(end.violation?.kind).toBe('race');
    expect(end.violation?.message).toMatch(/read-after-write/);
    // or read while it is in flight
    const again = boot(tmaProgram(false));
    const end2 = runToEnd(again.m, again.s, roleFirst);
    expect(end2.violation?.kind).toBe('race');
    expect(end2.violation?.message).toMatch(/has not landed/);
  });

  it('wgmma.wait N blocks until at most N groups are outstanding and groups retire in order', () => {
    const { m, s } = boot(`buffer S[2] bytes 64
role c warps 4:
  wgmma.issue S[0]
  wgmma.commit
  wgmma.issue S[1]
  wgmma.commit
  wgmma.wait 1
  wgmma.wait 0
`);
    for (let i = 0; i < 4; i++) executeAction(m, s, { kind: 'role', role: 0 });
    expect(s.roles[0]!.mmaGroups.map((g) => g.slots)).toEqual([[0], [1]]);
    expect(enabledActions(m, s)).toEqual([{ kind: 'retire', role: 0, unit: 'mma' }]);
    executeAction(m, s, { kind: 'retire', role: 0, unit: 'mma' });
    expect(s.roles[0]!.mmaGroups.map((g) => g.retired)).toEqual([true, false]);
    executeAction(m, s, { kind: 'role', role: 0 }); // wait 1 passes: one outstanding
    expect(s.roles[0]!.mmaGroups).toHaveLength(1);
    expect(enabledActions(m, s)).toEqual([{ kind: 'retire', role: 0, unit: 'mma' }]);
  });

  it('generic writes read by wgmma need fence.proxy.async (M13)', () => {
    const text = (fence: boolean): string => `buffer S[1] bytes 64
role c warps 4:
  write S[0], 1
${fence ? '  fence.proxy.async\n' : ''}  wgmma.issue S[0] expect 1
  wgmma.commit
  wgmma.wait 0
`;
    const bad = boot(text(false));
    expect(runToEnd(bad.m, bad.s).violation?.message).toMatch(/no fence.proxy.async/);
    const good = boot(text(true));
    expect(isFinished(good.m, runToEnd(good.m, good.s))).toBe(true);
  });
});

describe('named barriers', () => {
  it('bar.sync waits for all threads, then orders the arrivals before everyone after it', () => {
    const { m, s } = boot(`buffer S[1] bytes 64
role a warps 1:
  write S[0], 1
  bar.sync 1, 64
role b warps 1:
  bar.sync 1, 64
  read S[0] expect 1
`);
    const end = runToEnd(m, s, (as) => as[as.length - 1]!);
    expect(end.violation).toBeUndefined();
    expect(isFinished(m, end)).toBe(true);
  });

  it('without the barrier the read races with the write (M14)', () => {
    const { m, s } = boot(`buffer S[1] bytes 64
role a warps 1:
  write S[0], 1
role b warps 1:
  read S[0]
`);
    const end = runToEnd(m, s);
    expect(end.violation?.kind).toBe('race');
  });

  it('more arrivals than the thread count is a protocol error', () => {
    const { m, s } = boot(`role a warps 4:
  bar.arrive 2, 64
`);
    expect(runToEnd(m, s).violation?.message).toMatch(/more than the 64/);
  });
});

describe('the end of a run at the mbarrier level', () => {
  it('a barrier left with arrivals missing and nobody waiting is no error (the CTA exits)', () => {
    const { m, s } = boot(`mbarrier b[1] count 2
role p warps 1:
  arrive b[0]
`);
    const end = runToEnd(m, s);
    expect(end.violation).toBeUndefined();
    expect(end.barriers[0]?.pending).toBe(1);
  });

  it('bytes announced and never delivered leave the phase open', () => {
    const { m, s } = boot(`mbarrier b[1] count 2
role p warps 1:
  arrive.expect_tx b[0], 64
  arrive b[0]
`);
    expect(runToEnd(m, s).violation?.message).toMatch(/left in the middle of phase 0 \(2 of 2 arrivals and 64 bytes outstanding\): a copy is missing/);
  });

  it('a completed phase of a transaction barrier that no wait observed lost its data', () => {
    const text = (consumer: string): string => `buffer S[1] bytes 64
mbarrier full[1] count 1
role p warps 1:
  arrive.expect_tx full[0], 64
  tma.load S[0] -> full[0], 64
${consumer}`;
    const lost = boot(text(''));
    expect(runToEnd(lost.m, lost.s, asyncFirst).violation?.message).toMatch(/phase 0 of full\[0\] has completed but no wait observed it/);
    const ok = boot(text('role c warps 1:\n  wait full[0], 0\n  read S[0]\n'));
    const end = runToEnd(ok.m, ok.s, asyncFirst);
    expect(end.violation).toBeUndefined();
    expect(isFinished(ok.m, end)).toBe(true);
  });

  it('data a TMA copy landed that nobody read is lost', () => {
    const text = (read: string): string => `buffer S[1] bytes 64
mbarrier full[1] count 1
role p warps 1:
  arrive.expect_tx full[0], 64
  tma.load S[0] -> full[0], 64
  wait full[0], 0
${read}
`;
    const lost = boot(text(''));
    expect(runToEnd(lost.m, lost.s, asyncFirst).violation?.message).toMatch(/S\[0\] holds data a TMA copy landed that nobody read/);
    const ok = boot(text('  read S[0]'));
    expect(runToEnd(ok.m, ok.s, asyncFirst).violation).toBeUndefined();
  });

  it('a completed empty barrier that no one waits on is fine (the last releases of a ring)', () => {
    const { m, s } = boot(`mbarrier empty[1] count 1
role c warps 1:
  arrive empty[0]
`);
    const end = runToEnd(m, s);
    expect(end.violation).toBeUndefined();
    expect(isFinished(m, end)).toBe(true);
  });
});

describe('values past 32 bits (issue 12.3)', () => {
  it('a value tag the packed state cannot hold exactly is refused with its position, never compared wrapped', () => {
    const { m, s } = boot(`param K = 120000
aref A[1]
role p warps 1:
  for k in 0..K:
    put A[0], k * 20000
role c warps 1:
  for k in 0..K:
    get A[0] expect k * 20000
    consumed A[0]
`);
    let error: unknown;
    try {
      runToEnd(m, s, roleFirst, 2_000_000);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).format()).toMatch(/^test\.aref:5:5: error: the put operand evaluates to 2147500000, outside the range/);
  });

  it('an expectation that would hold only after wrapping is refused too: by the validator, and by the rules without it', () => {
    const text = `aref A[1]
role p warps 1:
  put A[0], 65536 * 65536
role c warps 1:
  get A[0] expect 0
  consumed A[0]
`;
    expect(() => boot(text)).toThrow(/65536 \* 65536 is 4294967296, which does not fit a 32-bit integer/);
    const { m, s } = bootUnchecked(`aref A[1]
role p warps 1:
  put A[0], 65536 * 65536
role c warps 1:
  get A[0] expect 0
  consumed A[0]
`);
    expect(() => runToEnd(m, s, roleFirst)).toThrow(/outside the range the checker represents exactly/);
  });
});
