// The event table: only the access events an operation of the program can create get a
// happens-before bit; the others are never present and known to nobody.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseProgramText } from '../../src/lang/load.ts';
import { compileMachine } from '../../semantics/machine.ts';
import { READ_GENERIC, READ_STORE, READ_WGMMA, UNTRACKED } from '../../semantics/events.ts';
import { fenceEvent, readEvent, readFenceEvent, writeEvent } from '../../semantics/state.ts';
import { ROOT } from '../../scripts/regen-traces.ts';

const machineOf = (file: string) => compileMachine(parseProgramText(readFileSync(join(ROOT, file), 'utf8'), file));

describe('tracked access events', () => {
  it('M13 twin: the producer writes and fences, the consumer reads by wgmma — 3 events for the one slot', () => {
    const m = machineOf('examples/gallery/m13-missing-proxy-fence-ok.aref');
    const [producer, consumer] = [0, 1];
    expect(writeEvent(m, 0)).not.toBe(UNTRACKED);
    expect(fenceEvent(m, 0, producer)).not.toBe(UNTRACKED);
    expect(fenceEvent(m, 0, consumer)).toBe(UNTRACKED); // the consumer never fences
    expect(readEvent(m, 0, READ_WGMMA, consumer)).not.toBe(UNTRACKED);
    for (const kind of [READ_GENERIC, READ_STORE]) expect(readEvent(m, 0, kind, consumer)).toBe(UNTRACKED);
    expect(readEvent(m, 0, READ_WGMMA, producer)).toBe(UNTRACKED);
    expect(readFenceEvent(m, 0, consumer)).toBe(UNTRACKED); // no generic reader
    expect(m.events.count).toBe(3);
  });

  it('a dynamic index tracks every element of the resource it may name', () => {
    const m = machineOf('examples/double-buffer.aref');
    const reads = Array.from({ length: m.slotCount }, (_, x) => m.roles.some((_, r) => readEvent(m, x, READ_GENERIC, r) !== UNTRACKED));
    expect(reads.every(Boolean)).toBe(true);
  });
});
