// PTX text under construction: virtual registers by family, fresh labels, indented lines.
// PTX registers are not SSA, so a loop variable is one register updated in place.

export const REG_FAMILIES = {
  r: '.b32',
  rd: '.b64',
  p: '.pred',
  f: '.f32',
  acc: '.f32',
} as const;
export type RegFamily = keyof typeof REG_FAMILIES;

export class PtxBuilder {
  private readonly out: string[] = [];
  private readonly counts: Record<RegFamily, number> = { r: 0, rd: 0, p: 0, f: 0, acc: 0 };
  private labels = 0;

  /** A fresh register of the family, e.g. `%r12`. */
  reg(family: RegFamily): string {
    const n = this.counts[family]++;
    return `%${family}${n}`;
  }

  /** `n` consecutive fresh registers of one family (wgmma accumulators, vector loads). */
  regs(family: RegFamily, n: number): string[] {
    return Array.from({ length: n }, () => this.reg(family));
  }

  /** A fresh label name, e.g. `$L_wait_3`. */
  label(hint: string): string {
    return `$L_${hint}_${this.labels++}`;
  }

  /** One instruction (the trailing `;` is added). */
  ins(text: string): void {
    this.out.push(`\t${text};`);
  }

  place(label: string): void {
    this.out.push(`${label}:`);
  }

  comment(text: string): void {
    this.out.push(`\t// ${text}`);
  }

  /** A line written as given (directives, blank lines). */
  raw(text: string): void {
    this.out.push(text);
  }

  /** The `.reg` declarations for every register handed out so far. */
  declarations(): string[] {
    const lines: string[] = [];
    for (const family of Object.keys(REG_FAMILIES) as RegFamily[]) {
      const n = this.counts[family];
      if (n > 0) lines.push(`\t.reg ${REG_FAMILIES[family]} %${family}<${n}>;`);
    }
    return lines;
  }

  lines(): readonly string[] {
    return this.out;
  }
}
