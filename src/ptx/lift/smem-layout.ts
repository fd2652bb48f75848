// Concrete shared-memory addresses for a module's `.shared` variables. Static variables are
// laid out in declaration order with their alignment (module level first, then each
// function's own declarations); dynamic shared memory (`.extern .shared … name[]`) starts after
// them, 1024-aligned. Only relative positions matter to the model: the names of barriers and
// buffers, slot boundaries, and the gaps used to size tensor copies.
import type { PtxModule, Statement, VarDecl } from '../parse/ast.ts';
import { typeBytes } from './opcode.ts';

export interface SmemSymbol {
  readonly decl: VarDecl;
  readonly name: string;
  readonly start: number;
  /** Bytes; Infinity for dynamic shared memory. */
  readonly size: number;
  readonly dynamic: boolean;
}

export interface SmemLayout {
  readonly symbols: readonly SmemSymbol[];
  readonly dynamicBase: number;
  addressOf(decl: VarDecl): number | undefined;
  /** The symbol whose bytes contain `addr` (the static one when a dynamic symbol also starts there). */
  symbolAt(addr: number): SmemSymbol | undefined;
}

export function declBytes(d: VarDecl): number {
  const elem = typeBytes(d.type) * (d.vector ?? 1);
  const n = d.elements === undefined ? 1 : d.elements === 'unsized' ? 0 : d.elements;
  return elem * n;
}

function collectShared(stmts: readonly Statement[], out: VarDecl[]): void {
  for (const s of stmts) {
    if (s.kind === 'var' && s.space === 'shared') out.push(s);
    else if (s.kind === 'block') collectShared(s.body, out);
  }
}

export function layoutSharedMemory(module: PtxModule): SmemLayout {
  const decls: VarDecl[] = module.globals.filter((g) => g.space === 'shared');
  for (const f of module.functions) if (f.body) collectShared(f.body, decls);
  const symbols: SmemSymbol[] = [];
  const byDecl = new Map<VarDecl, number>();
  let next = 0;
  const dynamics: VarDecl[] = [];
  for (const d of decls) {
    if (d.extern || d.elements === 'unsized') {
      dynamics.push(d);
      continue;
    }
    const align = Math.max(1, d.align ?? typeBytes(d.type));
    next = Math.ceil(next / align) * align;
    const size = declBytes(d);
    symbols.push({ decl: d, name: d.name, start: next, size, dynamic: false });
    byDecl.set(d, next);
    next += size;
  }
  const dynamicBase = Math.ceil(next / 1024) * 1024;
  for (const d of dynamics) {
    symbols.push({ decl: d, name: d.name, start: dynamicBase, size: Infinity, dynamic: true });
    byDecl.set(d, dynamicBase);
  }
  const statics = symbols.filter((s) => !s.dynamic);
  return {
    symbols,
    dynamicBase,
    addressOf: (decl) => byDecl.get(decl),
    symbolAt(addr) {
      for (const s of statics) if (addr >= s.start && addr < s.start + s.size) return s;
      if (addr >= dynamicBase) return symbols.find((s) => s.dynamic);
      return undefined;
    },
  };
}
