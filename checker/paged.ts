// A typed array indexed by state id that grows in pages and never copies what it holds once past
// its first page. Growing one array by half copies every entry each time and holds the old and
// the new array at once (2.5 times the entries at that moment), and leaves up to a third of it
// unused; pages leave at most one page unused. The first page starts small and grows like a
// plain array up to a full page, so a small run stays small.

import type { ByteBudget } from './growable.ts';

const PAGE_BITS = 12;
const PAGE = 1 << PAGE_BITS;
const PAGE_MASK = PAGE - 1;
const FIRST_LENGTH = 32;

type IdArray = Int32Array | Uint32Array | Uint16Array;

export class PagedArray<T extends IdArray> {
  private readonly pages: T[];
  private readonly make: new (length: number) => T;
  private readonly budget: ByteBudget;

  constructor(make: new (length: number) => T, budget: ByteBudget) {
    this.make = make;
    this.budget = budget;
    this.pages = [budget.alloc(make, FIRST_LENGTH)];
  }

  get(i: number): number {
    return this.pages[i >>> PAGE_BITS]![i & PAGE_MASK]!;
  }

  /** Set entry i; entries are set in order of i, so at most one more page (or a longer first page) is needed. */
  set(i: number, value: number): void {
    const p = i >>> PAGE_BITS;
    let page = this.pages[p];
    if (page === undefined) {
      page = this.budget.alloc(this.make, PAGE);
      this.pages[p] = page;
    } else if (p === 0 && i >= page.length) {
      const longer = this.budget.alloc(this.make, Math.min(PAGE, Math.max(i + 1, Math.ceil(page.length * 1.5))));
      longer.set(page);
      this.budget.release(page);
      this.pages[0] = page = longer;
    }
    page[i & PAGE_MASK] = value;
  }
}
