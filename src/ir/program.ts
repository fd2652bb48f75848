// The Program IR: one representation for both semantic levels (DESIGN.md "Data flow").
// A program is parameters, resources and roles; a role's body is structured statements
// whose leaves are operations of one op family each. Plain JSON-able data: the .json
// machine form is exactly this shape (see src/lang/json.ts).

/** A position in a source file (.aref, .json or .ptx), 1-based. */
export interface Loc {
  readonly file?: string;
  readonly line: number;
  readonly col: number;
}

export const BIN_OPS = ['+', '-', '*', '/', '%', '&', '|', '^', '<<', '>>', '==', '!=', '<', '<=', '>', '>=', '&&', '||'] as const;
export type BinOp = (typeof BIN_OPS)[number];
export const UN_OPS = ['-', '!'] as const;
export type UnOp = (typeof UN_OPS)[number];

/** Integer expressions over parameters and loop variables (C semantics: / and % truncate). */
export type Expr =
  | { readonly kind: 'num'; readonly value: number }
  | { readonly kind: 'var'; readonly name: string; readonly loc?: Loc }
  | { readonly kind: 'un'; readonly op: UnOp; readonly arg: Expr }
  | { readonly kind: 'bin'; readonly op: BinOp; readonly left: Expr; readonly right: Expr };

/** `name[index]`: one element of an indexed resource (aref slot, barrier, buffer slot). */
export interface Ref {
  readonly name: string;
  readonly index: Expr;
}

// ---- operations, by family -------------------------------------------------------------

/** aref family (Tawa rules, level 1). */
export type ArefOp =
  | { readonly kind: 'put'; readonly target: Ref; readonly value: Expr }
  /** `expect`: the value this get must return (FIFO property); absent = not checked. */
  | { readonly kind: 'get'; readonly target: Ref; readonly expect?: Expr }
  | { readonly kind: 'consumed'; readonly target: Ref };

/**
 * mbarrier family (PTX, level 2). `count` in arrive defaults to 1 in the text form. `token`: the
 * arrive returns the barrier's state (libcu++ `cuda::barrier::arrive()`), kept in a role-local
 * token variable of that name; `wait.token` waits for the phase that token names to complete.
 */
export type MbarrierOp =
  | { readonly kind: 'init'; readonly target: Ref; readonly count: Expr }
  | { readonly kind: 'arrive'; readonly target: Ref; readonly count: Expr; readonly token?: string }
  | { readonly kind: 'arrive.expect_tx'; readonly target: Ref; readonly bytes: Expr; readonly token?: string }
  | { readonly kind: 'expect_tx'; readonly target: Ref; readonly bytes: Expr }
  | { readonly kind: 'complete_tx'; readonly target: Ref; readonly bytes: Expr }
  /** try_wait.parity in a spin loop: blocks until (phase & 1) != parity. */
  | { readonly kind: 'wait'; readonly target: Ref; readonly parity: Expr }
  /** try_wait with a state token in a spin loop: blocks until the phase the token names has completed. */
  | { readonly kind: 'wait.token'; readonly target: Ref; readonly token: string }
  | { readonly kind: 'inval'; readonly target: Ref };

/** Asynchronous units: TMA (bulk copies) and wgmma. */
export type AsyncOp =
  /** Copy into buffer slot `target`; lands later and performs complete_tx(bytes) on `barrier`. `value`: the data tag it writes (FIFO). */
  /** `slots`: consecutive slots from `target` that the one copy fills (default 1); it lands as one unit */
  | { readonly kind: 'tma.load'; readonly target: Ref; readonly barrier: Ref; readonly bytes: Expr; readonly slots?: Expr; readonly value?: Expr }
  /** TMA store reading a buffer slot asynchronously until a later `bulk.wait` retires it. */
  | { readonly kind: 'tma.store'; readonly target: Ref }
  | { readonly kind: 'bulk.commit' }
  | { readonly kind: 'bulk.wait'; readonly pending: Expr }
  /** wgmma.mma_async reading `target` (a buffer slot or an aref slot). `commit`: the `mma.issue` shorthand, issue + commit_group. */
  | { readonly kind: 'wgmma.issue'; readonly target: Ref; readonly expect?: Expr; readonly commit: boolean }
  | { readonly kind: 'wgmma.commit' }
  /** wgmma.wait_group N: blocks until at most N committed groups of this role are outstanding. */
  | { readonly kind: 'wgmma.wait'; readonly pending: Expr };

/** Named barriers, fences and plain (generic-proxy) accesses. */
export type OtherOp =
  | { readonly kind: 'bar.sync'; readonly id: Expr; readonly threads: Expr }
  | { readonly kind: 'bar.arrive'; readonly id: Expr; readonly threads: Expr }
  | { readonly kind: 'fence.proxy.async' }
  | { readonly kind: 'read'; readonly target: Ref; readonly expect?: Expr }
  | { readonly kind: 'write'; readonly target: Ref; readonly value?: Expr }
  /**
   * A generic-proxy read-modify-write (PTX atom/red on shared memory). Atomics to one slot never
   * race with each other (the PTX memory model: they are morally strong); with plain accesses and
   * asynchronous ones they race as a write does.
   */
  | { readonly kind: 'atomic'; readonly target: Ref };

export type Op = ArefOp | MbarrierOp | AsyncOp | OtherOp;

/** The token variable an op sets (arrive … -> t) or waits on (wait …, token t). */
export function opToken(op: Op): string | undefined {
  if (op.kind === 'wait.token') return op.token;
  if (op.kind === 'arrive' || op.kind === 'arrive.expect_tx') return op.token;
  return undefined;
}
export type OpKind = Op['kind'];

export const OP_FAMILY = {
  put: 'aref', get: 'aref', consumed: 'aref',
  init: 'mbarrier', arrive: 'mbarrier', 'arrive.expect_tx': 'mbarrier', expect_tx: 'mbarrier',
  complete_tx: 'mbarrier', wait: 'mbarrier', 'wait.token': 'mbarrier', inval: 'mbarrier',
  'tma.load': 'async', 'tma.store': 'async', 'bulk.commit': 'async', 'bulk.wait': 'async',
  'wgmma.issue': 'async', 'wgmma.commit': 'async', 'wgmma.wait': 'async',
  'bar.sync': 'named', 'bar.arrive': 'named', 'fence.proxy.async': 'fence', read: 'plain', write: 'plain', atomic: 'plain',
} as const satisfies Record<OpKind, string>;
export type OpFamily = (typeof OP_FAMILY)[OpKind];

// ---- statements and roles ---------------------------------------------------------------

export type Stmt =
  /** for v in from..to: (to exclusive) */
  | { readonly kind: 'for'; readonly var: string; readonly from: Expr; readonly to: Expr; readonly body: readonly Stmt[]; readonly loc?: Loc }
  | { readonly kind: 'if'; readonly cond: Expr; readonly then: readonly Stmt[]; readonly else: readonly Stmt[]; readonly loc?: Loc }
  | { readonly kind: 'op'; readonly op: Op; readonly loc?: Loc };

export interface Role {
  readonly name: string;
  /** Warps in this role (a warp group is 4). Named-barrier thread counts use warps × 32. */
  readonly warps: number;
  readonly body: readonly Stmt[];
  readonly loc?: Loc;
}

// ---- resources --------------------------------------------------------------------------

export type Resource =
  /** `depth` arefs A[0..depth-1]: a D-slot ring; `bytes` per slot is what lowering expects per put (default 16384). */
  | { readonly kind: 'aref'; readonly name: string; readonly depth: number; readonly bytes?: number; readonly loc?: Loc }
  /** `size` mbarriers; `count` = arrival count they are initialised with before any role runs, absent = uninitialised (a role must `init`). */
  | { readonly kind: 'mbarrier'; readonly name: string; readonly size: number; readonly count?: number; readonly loc?: Loc }
  /** Shared-memory buffer with `slots` slots of `bytes` bytes each. */
  | { readonly kind: 'buffer'; readonly name: string; readonly slots: number; readonly bytes: number; readonly loc?: Loc };

export interface Param {
  readonly name: string;
  readonly value: number;
  readonly loc?: Loc;
}

export interface Program {
  readonly params: readonly Param[];
  readonly resources: readonly Resource[];
  readonly roles: readonly Role[];
  /**
   * Named barrier ids 0..N-1 (default 16, one CTA's). A program of a cluster of C CTAs (lifted
   * PTX) numbers CTA c's barriers 16c.. and uses 16C for the cluster barrier.
   */
  readonly namedBarriers?: number;
  /**
   * Roles whose wgmma operations are those of one warpgroup (its warps lifted to different roles,
   * as when warp 0 also issues the copies): wgmma.mma_async is one operation of the 4 warps, so a
   * group retires in every role of the set at once, and only once each has committed it.
   */
  readonly warpgroups?: readonly (readonly string[])[];
  /** Where the program came from (file name), for messages. */
  readonly source?: string;
}

export type Level = 'aref' | 'mbarrier';

/** The level a program lives at: aref if it uses any aref op, otherwise mbarrier. */
export function programLevel(program: Program): Level {
  let aref = false;
  forEachOp(program, (op) => {
    if (OP_FAMILY[op.kind] === 'aref') aref = true;
  });
  return aref ? 'aref' : 'mbarrier';
}

export function forEachOp(program: Program, visit: (op: Op, role: Role, loc: Loc | undefined) => void): void {
  for (const role of program.roles) {
    const walk = (stmts: readonly Stmt[]): void => {
      for (const s of stmts) {
        if (s.kind === 'op') visit(s.op, role, s.loc);
        else if (s.kind === 'for') walk(s.body);
        else {
          walk(s.then);
          walk(s.else);
        }
      }
    };
    walk(role.body);
  }
}

export function findResource(program: Program, name: string): Resource | undefined {
  return program.resources.find((r) => r.name === name);
}

/** Number of elements of a resource (aref depth, barrier array size, buffer slots). */
export function resourceSize(r: Resource): number {
  return r.kind === 'aref' ? r.depth : r.kind === 'mbarrier' ? r.size : r.slots;
}
