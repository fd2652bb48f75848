// Recursive-descent PTX parser: tokens → PtxModule. Grammar only; the lifter gives meaning.
// Accepts what nvcc, LLVM's NVPTX back end (Triton) and hand-written inline asm produce:
// scopes `{ … }` with their own registers and labels, guards, vectors, tensor memory
// operands, `.loc`/`.file` lines, DWARF `.section`s (skipped).
import { InputError } from '../../diag.ts';
import type { Loc } from '../../ir/program.ts';
import type {
  BranchTargets,
  Block, Guard, Instruction, Operand, ParamDecl, PerfDirectives, PtxFunction, PtxModule, RegDecl, Statement, StateSpace, VarDecl,
} from './ast.ts';
import { STATE_SPACES } from './ast.ts';
import { floatLiteralBits, parseIntLiteral, tokenize, type Comment, type Token } from './lexer.ts';

/** Directives that run to the end of their line (no `;`). */
const LINE_DIRECTIVES = new Set(['.loc', '.file', '.version', '.target', '.address_size']);
const PERF_DIRECTIVES = new Set(['.maxntid', '.reqntid', '.maxnreg', '.minnctapersm', '.maxnctapersm', '.maxclusterrank', '.reqnctapercluster', '.explicitcluster', '.noreturn', '.blocksareclusters']);
/** Nesting bound for scopes and operands: deeper input is refused, not a stack overflow. */
const MAX_DEPTH = 200;
const LINKAGE = new Set(['.visible', '.extern', '.weak', '.common']);
const SPACE_DIRS = new Set(STATE_SPACES.map((s) => `.${s}`));

export function parsePtx(text: string, file: string): PtxModule {
  const comments: Comment[] = [];
  const module = new Parser(tokenize(text, file, comments), file).module();
  return { ...module, comments };
}

class Parser {
  private pos = 0;
  private depth = 0;
  private readonly toks: readonly Token[];
  private readonly file: string;
  constructor(toks: readonly Token[], file: string) {
    this.toks = toks;
    this.file = file;
  }

  // ---- token helpers -------------------------------------------------------------------

  private peek(k = 0): Token {
    const t = this.toks[this.pos + k] ?? this.toks[this.toks.length - 1];
    if (!t) throw new InputError('empty input', { file: this.file, line: 1, col: 1 });
    return t;
  }
  private next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.pos++;
    return t;
  }
  private loc(t: Token): Loc {
    return { file: this.file, line: t.line, col: t.col };
  }
  private fail(t: Token, msg: string): never {
    throw new InputError(msg, this.loc(t));
  }
  private describe(t: Token): string {
    return t.kind === 'eof' ? 'end of file' : `'${t.text}'`;
  }
  private isPunct(text: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === 'punct' && t.text === text;
  }
  private expectPunct(text: string, what?: string): Token {
    const t = this.next();
    if (t.kind !== 'punct' || t.text !== text) this.fail(t, `expected '${text}'${what ? ` ${what}` : ''}, found ${this.describe(t)}`);
    return t;
  }
  private acceptPunct(text: string): boolean {
    if (this.isPunct(text)) {
      this.pos++;
      return true;
    }
    return false;
  }
  private expectIdent(what: string): Token {
    const t = this.next();
    if (t.kind !== 'ident') this.fail(t, `expected ${what}, found ${this.describe(t)}`);
    return t;
  }
  private expectInt(what: string): number {
    const t = this.next();
    const v = t.kind === 'int' ? parseIntLiteral(t.text) : undefined;
    if (v === undefined || v > BigInt(Number.MAX_SAFE_INTEGER)) this.fail(t, `expected ${what}, found ${this.describe(t)}`);
    return Number(v);
  }
  /** Skip the rest of the line of token `t` (for `.loc`, `.file`, …). */
  private skipLine(t: Token): void {
    while (this.peek().kind !== 'eof' && this.peek().line === t.line && !this.isPunct('{') && !this.isPunct('}')) {
      if (this.isPunct(';')) {
        this.pos++;
        return;
      }
      this.pos++;
    }
  }
  /** Skip a balanced `{ … }` group starting at the current `{`. */
  private skipBraces(): void {
    const open = this.expectPunct('{');
    let depth = 1;
    while (depth > 0) {
      const t = this.next();
      if (t.kind === 'eof') this.fail(open, "unclosed '{'");
      if (t.kind === 'punct' && t.text === '{') depth++;
      else if (t.kind === 'punct' && t.text === '}') depth--;
    }
  }
  /** Skip to and past the next `;` at this nesting level. */
  private skipStatement(): void {
    let depth = 0;
    for (;;) {
      const t = this.next();
      if (t.kind === 'eof') return;
      if (t.kind === 'punct' && (t.text === '{' || t.text === '(' || t.text === '[')) depth++;
      else if (t.kind === 'punct' && (t.text === '}' || t.text === ')' || t.text === ']')) depth--;
      else if (depth <= 0 && t.kind === 'punct' && t.text === ';') return;
    }
  }

  // ---- module ----------------------------------------------------------------------------

  module(): PtxModule {
    let version: string | undefined;
    let target: string | undefined;
    let addressSize: number | undefined;
    const globals: VarDecl[] = [];
    const functions: PtxFunction[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind === 'eof') break;
      if (t.kind === 'punct' && t.text === '@' && this.isPunct('@', 1)) {
        this.skipLine(t); // legacy `@@DWARF …` lines
        continue;
      }
      if (t.kind !== 'dir') this.fail(t, `expected a directive at module level, found ${this.describe(t)}`);
      switch (t.text) {
        case '.version':
          this.next();
          version = this.next().text;
          this.skipLine(t);
          continue;
        case '.target':
          this.next();
          target = this.lineText(t);
          continue;
        case '.address_size':
          this.next();
          addressSize = this.expectInt('an address size');
          this.skipLine(t);
          continue;
        case '.section':
          this.next();
          while (!this.isPunct('{') && this.peek().kind !== 'eof') this.next();
          this.skipBraces();
          continue;
        case '.pragma':
        case '.alias':
          this.next();
          this.skipStatement();
          continue;
      }
      if (LINE_DIRECTIVES.has(t.text)) {
        this.next();
        this.skipLine(t);
        continue;
      }
      // linkage, then .entry/.func or a variable
      let extern = false;
      while (this.peek().kind === 'dir' && LINKAGE.has(this.peek().text)) {
        if (this.next().text === '.extern') extern = true;
      }
      const d = this.peek();
      if (d.kind === 'dir' && (d.text === '.entry' || d.text === '.func')) {
        functions.push(this.func());
      } else if (d.kind === 'dir' && SPACE_DIRS.has(d.text)) {
        globals.push(this.varDecl(extern));
      } else {
        this.fail(d, `unexpected ${this.describe(d)} at module level`);
      }
    }
    return {
      file: this.file,
      ...(version !== undefined ? { version } : {}),
      ...(target !== undefined ? { target } : {}),
      ...(addressSize !== undefined ? { addressSize } : {}),
      globals,
      functions,
    };
  }

  private lineText(t: Token): string {
    const parts: string[] = [];
    while (this.peek().kind !== 'eof' && this.peek().line === t.line) parts.push(this.next().text);
    return parts.join(' ').replace(/ ,/g, ',');
  }

  // ---- functions -------------------------------------------------------------------------

  private func(): PtxFunction {
    const kw = this.next();
    const kind = kw.text === '.entry' ? 'entry' : 'func';
    let returns: ParamDecl[] = [];
    if (kind === 'func' && this.isPunct('(')) returns = this.paramList();
    const nameTok = this.expectIdent(`a ${kind === 'entry' ? 'kernel' : 'function'} name`);
    let params: ParamDecl[] = [];
    if (this.isPunct('(')) params = this.paramList();
    const perf = this.perfDirectives();
    const base = { kind, name: nameTok.text, params, returns, perf, loc: this.loc(nameTok) } as const;
    if (this.acceptPunct(';')) return base;
    if (!this.isPunct('{')) this.fail(this.peek(), `expected '{' or ';' after the signature of ${nameTok.text}, found ${this.describe(this.peek())}`);
    return { ...base, body: this.block().body };
  }

  private paramList(): ParamDecl[] {
    this.expectPunct('(');
    const out: ParamDecl[] = [];
    if (this.acceptPunct(')')) return out;
    for (;;) {
      out.push(this.param());
      if (this.acceptPunct(')')) return out;
      this.expectPunct(',', 'between parameters');
    }
  }

  private param(): ParamDecl {
    const first = this.next();
    if (first.kind !== 'dir' || (first.text !== '.param' && first.text !== '.reg')) this.fail(first, `expected .param or .reg, found ${this.describe(first)}`);
    let type = '';
    let align: number | undefined;
    while (this.peek().kind === 'dir') {
      const d = this.next();
      if (d.text === '.align') align = this.expectInt('an alignment');
      else if (d.text === '.ptr' || SPACE_DIRS.has(d.text)) continue;
      else type = d.text.slice(1);
    }
    const name = this.expectIdent('a parameter name');
    let elements: number | undefined;
    while (this.acceptPunct('[')) {
      const n = this.isPunct(']') ? 0 : this.expectInt('an array size');
      this.expectPunct(']');
      elements = (elements ?? 1) * n;
    }
    return {
      name: name.text,
      space: first.text === '.reg' ? 'reg' : 'param',
      type,
      ...(align !== undefined ? { align } : {}),
      ...(elements !== undefined ? { elements } : {}),
      loc: this.loc(name),
    };
  }

  private perfDirectives(): PerfDirectives {
    const perf: { maxntid?: number[]; reqntid?: number[]; maxnreg?: number; minnctapersm?: number; reqnctapercluster?: number[] } = {};
    for (;;) {
      const t = this.peek();
      if (t.kind === 'dir' && t.text === '.pragma') {
        this.next();
        this.skipStatement();
        continue;
      }
      if (t.kind !== 'dir' || !PERF_DIRECTIVES.has(t.text)) return perf;
      this.next();
      const nums: number[] = [];
      if (this.peek().kind === 'int') {
        nums.push(this.expectInt('a number'));
        while (this.isPunct(',') && this.peek(1).kind === 'int') {
          this.next();
          nums.push(this.expectInt('a number'));
        }
      }
      if (t.text === '.maxntid') perf.maxntid = nums;
      else if (t.text === '.reqntid') perf.reqntid = nums;
      else if (t.text === '.maxnreg' && nums[0] !== undefined) perf.maxnreg = nums[0];
      else if (t.text === '.minnctapersm' && nums[0] !== undefined) perf.minnctapersm = nums[0];
      else if (t.text === '.reqnctapercluster') perf.reqnctapercluster = nums;
    }
  }

  // ---- bodies ----------------------------------------------------------------------------

  private block(): Block {
    const open = this.expectPunct('{');
    if (++this.depth > MAX_DEPTH) this.fail(open, `scopes nested more than ${MAX_DEPTH} deep`);
    const body: Statement[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind === 'eof') this.fail(open, "unclosed '{' (missing '}')");
      if (t.kind === 'punct' && t.text === '}') {
        this.next();
        this.depth--;
        return { kind: 'block', body, loc: this.loc(open) };
      }
      const s = this.statement();
      if (s) body.push(s);
    }
  }

  /** One statement, or undefined for a line that carries no meaning (`.loc`, `.pragma`, stray `;`). */
  private statement(): Statement | undefined {
    const t = this.peek();
    if (t.kind === 'punct' && t.text === '{') return this.block();
    if (t.kind === 'punct' && t.text === ';') {
      this.next();
      return undefined;
    }
    if (t.kind === 'dir') {
      if (LINE_DIRECTIVES.has(t.text)) {
        this.next();
        this.skipLine(t);
        return undefined;
      }
      if (t.text === '.pragma') {
        this.next();
        this.skipStatement();
        return undefined;
      }
      if (t.text === '.reg') return this.regDecl();
      let extern = false;
      while (this.peek().kind === 'dir' && LINKAGE.has(this.peek().text)) {
        if (this.next().text === '.extern') extern = true;
      }
      if (SPACE_DIRS.has(this.peek().text)) return this.varDecl(extern);
      this.fail(this.peek(), `unexpected directive ${this.describe(this.peek())} in a function body`);
    }
    if (t.kind === 'ident' && this.isPunct(':', 1)) {
      this.next();
      this.next();
      if (this.peek().kind === 'dir' && this.peek().text === '.branchtargets') return this.branchTargets(t);
      return { kind: 'label', name: t.text, loc: this.loc(t) };
    }
    return this.instruction();
  }

  /** `name: .branchtargets L1, L2, …;` (the label is already read). */
  private branchTargets(name: Token): BranchTargets {
    this.next();
    const labels: string[] = [];
    for (;;) {
      labels.push(this.expectIdent('a label in .branchtargets').text);
      if (this.acceptPunct(';')) break;
      this.expectPunct(',', 'between the labels of .branchtargets');
    }
    return { kind: 'targets', name: name.text, labels, loc: this.loc(name) };
  }

  private regDecl(): RegDecl {
    const kw = this.next();
    let type = '';
    let vector: number | undefined;
    while (this.peek().kind === 'dir') {
      const d = this.next().text;
      const v = /^\.v(\d+)$/.exec(d);
      if (v?.[1]) vector = Number(v[1]);
      else if (d === '.align') this.expectInt('an alignment');
      else type = d.slice(1);
    }
    if (!type) this.fail(this.peek(), `expected a register type after .reg, found ${this.describe(this.peek())}`);
    const names: { name: string; count?: number }[] = [];
    for (;;) {
      const n = this.expectIdent('a register name');
      if (this.acceptPunct('<')) {
        const count = this.expectInt('a register count');
        this.expectPunct('>');
        names.push({ name: n.text, count });
      } else {
        names.push({ name: n.text });
      }
      if (this.acceptPunct(';')) break;
      this.expectPunct(',', 'between register names');
    }
    return { kind: 'reg', type, ...(vector !== undefined ? { vector } : {}), names, loc: this.loc(kw) };
  }

  private varDecl(extern: boolean): VarDecl {
    const sp = this.next();
    const space = sp.text.slice(1).split('::')[0] as StateSpace;
    let type = '';
    let align: number | undefined;
    let vector: number | undefined;
    while (this.peek().kind === 'dir') {
      const d = this.next().text;
      const v = /^\.v(\d+)$/.exec(d);
      if (d === '.align') align = this.expectInt('an alignment');
      else if (v?.[1]) vector = Number(v[1]);
      else if (d === '.ptr' || SPACE_DIRS.has(d) || d === '.attribute') continue;
      else type = d.slice(1);
    }
    const name = this.expectIdent('a variable name');
    let elements: number | 'unsized' | undefined;
    while (this.acceptPunct('[')) {
      if (this.acceptPunct(']')) {
        elements = 'unsized';
        continue;
      }
      const n = this.expectInt('an array size');
      this.expectPunct(']');
      elements = elements === 'unsized' ? 'unsized' : (elements ?? 1) * n;
    }
    if (this.isPunct('=')) {
      this.skipStatement(); // initializer values carry no synchronization
    } else {
      this.expectPunct(';', `after the declaration of ${name.text}`);
    }
    return {
      kind: 'var', space, name: name.text, type,
      ...(align !== undefined ? { align } : {}),
      ...(vector !== undefined ? { vector } : {}),
      ...(elements !== undefined ? { elements } : {}),
      extern, loc: this.loc(name),
    };
  }

  private instruction(): Instruction {
    const first = this.peek();
    let guard: Guard | undefined;
    if (this.acceptPunct('@')) {
      const negate = this.acceptPunct('!');
      const r = this.expectIdent('a predicate register after @');
      guard = { reg: r.text, negate };
    }
    const op = this.next();
    if (op.kind !== 'ident') this.fail(op, `expected an instruction, found ${this.describe(op)}`);
    const operands: Operand[] = [];
    if (!this.isPunct(';')) {
      for (;;) {
        operands.push(this.operand());
        if (this.acceptPunct(';')) break;
        if (this.isPunct(',')) {
          this.next();
          continue;
        }
        const bad = this.peek();
        this.fail(bad, `expected ',' or ';' in '${op.text}', found ${this.describe(bad)}`);
      }
    } else {
      this.next();
    }
    return { kind: 'instr', opcode: op.text, ...(guard ? { guard } : {}), operands, loc: this.loc(guard ? first : op) };
  }

  private operand(): Operand {
    const t = this.peek();
    const loc = this.loc(t);
    if (++this.depth > MAX_DEPTH) this.fail(t, `operand nested more than ${MAX_DEPTH} deep`);
    try {
      return this.operandInner(t, loc);
    } finally {
      this.depth--;
    }
  }

  private operandInner(t: Token, loc: Loc): Operand {
    if (t.kind === 'punct') {
      switch (t.text) {
        case '[':
          return this.memOperand();
        case '{': {
          this.next();
          const items: Operand[] = [];
          if (!this.acceptPunct('}')) {
            for (;;) {
              items.push(this.operand());
              if (this.acceptPunct('}')) break;
              this.expectPunct(',', 'in a vector operand');
            }
          }
          return { kind: 'vec', items, loc };
        }
        case '(': {
          this.next();
          const items: Operand[] = [];
          if (!this.acceptPunct(')')) {
            for (;;) {
              items.push(this.operand());
              if (this.acceptPunct(')')) break;
              this.expectPunct(',', 'in an argument list');
            }
          }
          return { kind: 'list', items, loc };
        }
        case '!': {
          this.next();
          const r = this.expectIdent('a predicate after !');
          return { kind: 'not', name: r.text, loc };
        }
        case '-': {
          this.next();
          const inner = this.operand();
          if (inner.kind === 'int') return { kind: 'int', value: -inner.value, loc };
          if (inner.kind === 'float') return { kind: 'float', text: '-' + inner.text, ...(inner.bits !== undefined ? { bits: inner.bits } : {}), loc };
          this.fail(t, "expected a number after '-'");
        }
      }
    }
    if (t.kind === 'int') {
      this.next();
      const v = parseIntLiteral(t.text);
      if (v === undefined) this.fail(t, `bad integer literal '${t.text}'`);
      return { kind: 'int', value: v, loc };
    }
    if (t.kind === 'float') {
      this.next();
      const bits = floatLiteralBits(t.text);
      return { kind: 'float', text: t.text, ...(bits !== undefined ? { bits } : {}), loc };
    }
    if (t.kind === 'ident') {
      this.next();
      if (t.text === '_') return { kind: 'sink', loc };
      if (this.isPunct('|') && this.peek(1).kind === 'ident') {
        this.next();
        const second = this.next();
        return { kind: 'pair', first: t.text, second: second.text, loc };
      }
      const offset = this.optionalOffset();
      return { kind: 'name', name: t.text, offset, loc };
    }
    this.fail(t, `expected an operand, found ${this.describe(t)}`);
  }

  /** `+ N`, `- N`, `+-N` after a name inside or outside brackets. */
  private optionalOffset(): bigint {
    let total = 0n;
    while (this.isPunct('+') || this.isPunct('-')) {
      let sign = this.next().text === '-' ? -1n : 1n;
      while (this.isPunct('-') || this.isPunct('+')) if (this.next().text === '-') sign = -sign;
      const n = this.next();
      const v = n.kind === 'int' ? parseIntLiteral(n.text) : undefined;
      if (v === undefined) this.fail(n, `expected an integer offset, found ${this.describe(n)}`);
      total += sign * v;
    }
    return total;
  }

  private memOperand(): Operand {
    const open = this.expectPunct('[');
    const loc = this.loc(open);
    const t = this.peek();
    let base: string | undefined;
    let offset = 0n;
    if (t.kind === 'ident') {
      this.next();
      base = t.text;
      offset = this.optionalOffset();
    } else if (t.kind === 'int') {
      this.next();
      const v = parseIntLiteral(t.text);
      if (v === undefined) this.fail(t, `bad integer literal '${t.text}'`);
      offset = v + this.optionalOffset();
    } else {
      this.fail(t, `expected an address inside [ ], found ${this.describe(t)}`);
    }
    let coords: Operand[] | undefined;
    if (this.acceptPunct(',')) {
      const v = this.operand();
      coords = v.kind === 'vec' ? [...v.items] : [v];
    }
    this.expectPunct(']', 'to close the address');
    return { kind: 'mem', ...(base !== undefined ? { base } : {}), offset, ...(coords ? { coords } : {}), loc };
  }
}
