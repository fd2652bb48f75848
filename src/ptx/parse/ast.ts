// The PTX syntax tree: what the text says, with positions. Meaning (registers vs symbols,
// addresses, execution) is the lifter's business.
import type { Loc } from '../../ir/program.ts';

export type Operand =
  /** A register, special register, symbol, label or function name, with an optional `+ offset` (`sym+8`). */
  | { readonly kind: 'name'; readonly name: string; readonly offset: bigint; readonly loc: Loc }
  /** `!%p`: a negated predicate source. */
  | { readonly kind: 'not'; readonly name: string; readonly loc: Loc }
  | { readonly kind: 'int'; readonly value: bigint; readonly loc: Loc }
  /** Float literal; `bits` for the hex forms `0f…`/`0d…`. */
  | { readonly kind: 'float'; readonly text: string; readonly bits?: bigint; readonly loc: Loc }
  /** `{a, b, …}`: vector operand. */
  | { readonly kind: 'vec'; readonly items: readonly Operand[]; readonly loc: Loc }
  /** `[base+offset]`, `[sym]`, `[%r]`, `[123]`, and the tensor form `[tmap, {c0, c1}]`. */
  | { readonly kind: 'mem'; readonly base?: string; readonly offset: bigint; readonly coords?: readonly Operand[]; readonly loc: Loc }
  /** `%r|%p`: the two destinations of elect.sync, setp, shfl.sync. */
  | { readonly kind: 'pair'; readonly first: string; readonly second: string; readonly loc: Loc }
  /** `(a, b)`: call return and argument lists. */
  | { readonly kind: 'list'; readonly items: readonly Operand[]; readonly loc: Loc }
  /** `_`: the sink destination. */
  | { readonly kind: 'sink'; readonly loc: Loc };

export interface Guard {
  readonly reg: string;
  readonly negate: boolean;
}

export interface Instruction {
  readonly kind: 'instr';
  readonly opcode: string;
  readonly guard?: Guard;
  readonly operands: readonly Operand[];
  readonly loc: Loc;
}

export interface Label {
  readonly kind: 'label';
  readonly name: string;
  readonly loc: Loc;
}

/** `.reg .b32 %r<279>, %x;`: `count` present for the `<N>` form (names prefix0 … prefixN-1). */
export interface RegDecl {
  readonly kind: 'reg';
  readonly type: string;
  readonly vector?: number;
  readonly names: readonly { readonly name: string; readonly count?: number }[];
  readonly loc: Loc;
}

export const STATE_SPACES = ['shared', 'local', 'global', 'const', 'param', 'tex'] as const;
export type StateSpace = (typeof STATE_SPACES)[number];

/** A variable declaration in a state space (module level or inside a body). */
export interface VarDecl {
  readonly kind: 'var';
  readonly space: StateSpace;
  readonly name: string;
  readonly type: string;
  readonly align?: number;
  readonly vector?: number;
  /** Number of elements (product of dimensions); 'unsized' for `name[]` (dynamic shared memory). */
  readonly elements?: number | 'unsized';
  readonly extern: boolean;
  readonly loc: Loc;
}

export interface Block {
  readonly kind: 'block';
  readonly body: readonly Statement[];
  readonly loc: Loc;
}

/** `L: .branchtargets A, B, C;`: the jump table of a `brx.idx …, L`. */
export interface BranchTargets {
  readonly kind: 'targets';
  readonly name: string;
  readonly labels: readonly string[];
  readonly loc: Loc;
}

export type Statement = Instruction | Label | RegDecl | VarDecl | Block | BranchTargets;

/** A kernel or function parameter (`.param` or, for `.func`, `.reg`). */
export interface ParamDecl {
  readonly name: string;
  readonly space: 'param' | 'reg';
  readonly type: string;
  readonly align?: number;
  readonly elements?: number;
  readonly loc: Loc;
}

export interface PerfDirectives {
  readonly maxntid?: readonly number[];
  readonly reqntid?: readonly number[];
  readonly maxnreg?: number;
  readonly minnctapersm?: number;
  /** `.reqnctapercluster X, Y, Z`: the cluster shape the kernel must be launched with. */
  readonly reqnctapercluster?: readonly number[];
}

export interface PtxFunction {
  readonly kind: 'entry' | 'func';
  readonly name: string;
  readonly params: readonly ParamDecl[];
  /** `.func (.param .b32 ret) f(…)`: return parameters. */
  readonly returns: readonly ParamDecl[];
  readonly perf: PerfDirectives;
  /** Absent for a prototype (`.extern .func f(…);`). */
  readonly body?: readonly Statement[];
  readonly loc: Loc;
}

export interface PtxModule {
  readonly file: string;
  /** Comments with their lines (generators put annotations there, e.g. the emitter's `arefcheck-buffer`). */
  readonly comments?: readonly { readonly line: number; readonly text: string }[];
  readonly version?: string;
  readonly target?: string;
  readonly addressSize?: number;
  readonly globals: readonly VarDecl[];
  readonly functions: readonly PtxFunction[];
}
