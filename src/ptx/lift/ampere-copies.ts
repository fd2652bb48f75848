// One warp's Ampere cp.async copies (non-bulk). A copy lands some time between its issue and the
// point that is known to cover it: a cp.async.wait_group that leaves fewer groups pending than
// are newer than its own, a wait_all, or a cp.async.mbarrier.arrive (its arrive-on follows every
// earlier copy of the thread). The lifter records a copy as a write of its bytes at its issue and
// again at that point: an access by another agent between the two is unordered with one of them,
// so the checker reports it, and one ordered after the covering point is ordered after both. A
// read by the issuing warp itself before the covering point is in program order with both
// writes and is not reported (the report says so).

/** Bytes one copy writes, in one CTA. */
export interface CopyBytes {
  readonly cta: number;
  readonly lo: number;
  readonly hi: number;
}

export class AmpereCopies {
  /** copies issued since the last commit_group */
  private open: CopyBytes[] = [];
  /** committed groups, oldest first, not yet known complete */
  private groups: CopyBytes[][] = [];

  issue(bytes: readonly CopyBytes[]): void {
    this.open.push(...bytes);
  }

  /** cp.async.commit_group: the open copies become one group (an empty group too). */
  commit(): void {
    this.groups.push(this.open);
    this.open = [];
  }

  /** cp.async.wait_group n: the copies of every group but the newest n are complete now. */
  waitGroups(n: number): CopyBytes[] {
    return this.groups.splice(0, Math.max(0, this.groups.length - n)).flat();
  }

  /** cp.async.mbarrier.arrive: every copy issued so far is complete before its arrive-on. */
  all(): CopyBytes[] {
    const out = [...this.groups.flat(), ...this.open];
    this.groups = [];
    this.open = [];
    return out;
  }

  /** The pending copies, as a string: equal strings, equal states (a branch on data compares its sides). */
  key(): string {
    return JSON.stringify([this.open, this.groups]);
  }

  restore(key: string): void {
    const [open, groups] = JSON.parse(key) as [CopyBytes[], CopyBytes[][]];
    this.open = open;
    this.groups = groups;
  }
}
