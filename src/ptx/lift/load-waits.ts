// Which generic shared-memory loads of a warp may still be in flight. A load writes its
// destination registers some cycles after it issues, and the warp stalls only at the first
// instruction that reads one of them; so only a load whose value something has read is known to
// be done. fold.ts uses it at a wgmma commit: a read the warp has waited for before committing is
// over before the warpgroup's group can retire, so before another warp's release after the
// `wgmma.wait_group` that retires it (CUTLASS's sparse GEMM reads its metadata, which its own
// wgmma takes as an operand).
import type { Arg, FlatInstr } from './flatten.ts';
import type { Val } from './values.ts';
import { slotsOf } from './value-uses.ts';

/** What a snapshot of a warp (a side of a branch on data) keeps of its loads in flight. */
export interface LoadsState {
  readonly byRegs: ReadonlyMap<readonly Val[], ReadonlySet<number>>;
  readonly untracked: boolean;
}

export class LoadsInFlight {
  /** per register file (one per call frame), the slots a load still writes */
  private byRegs = new Map<readonly Val[], Set<number>>();
  /** a read with no register to wait on (tensormap.cp_fenceproxy): never known to be over */
  private untracked = false;

  /** A load issued into `dest` (registers), or a read with no destination register. */
  issued(regs: readonly Val[], dest: Arg | undefined): void {
    const slots: number[] = [];
    if (dest?.k === 'reg' || dest?.k === 'vec') slotsOf(dest, slots);
    if (slots.length === 0) {
      this.untracked = true;
      return;
    }
    const set = this.byRegs.get(regs) ?? new Set<number>();
    for (const s of slots) set.add(s);
    this.byRegs.set(regs, set);
  }

  /**
   * The instruction is about to run: loads into the registers it reads are over. Only operands
   * known to be read count (an address in the first operand, every later operand); a
   * destination that is also read (wgmma's accumulator) is not counted, which only keeps loads
   * in flight longer.
   */
  reads(regs: readonly Val[], ins: FlatInstr): void {
    const set = this.byRegs.get(regs);
    if (!set || set.size === 0) return;
    const slots: number[] = [];
    ins.args.forEach((a, i) => {
      if (i > 0 || a.k === 'mem') slotsOf(a, slots);
    });
    if (ins.guard >= 0) slots.push(ins.guard);
    for (const s of slots) set.delete(s);
  }

  /** No load of the warp is in flight. */
  get none(): boolean {
    return !this.untracked && [...this.byRegs.values()].every((s) => s.size === 0);
  }

  snapshot(): LoadsState {
    return { byRegs: new Map([...this.byRegs].map(([k, v]) => [k, new Set(v)])), untracked: this.untracked };
  }

  restore(s: LoadsState): void {
    this.byRegs = new Map([...s.byRegs].map(([k, v]) => [k, new Set(v)]));
    this.untracked = s.untracked;
  }

  /** After both sides of a branch on data: a load is over only if it is over on both. */
  join(other: LoadsState): void {
    this.untracked ||= other.untracked;
    for (const [k, v] of other.byRegs) {
      const set = this.byRegs.get(k) ?? new Set<number>();
      for (const s of v) set.add(s);
      this.byRegs.set(k, set);
    }
  }
}
