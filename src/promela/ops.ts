// One operation of a role as Promela: a d_step whose guard is the rule's premise (the op's
// `isBlocked` negated, with the violation flag) and whose body is the rule's effect, checks in
// the order semantics/ makes them. An operand out of range is a protocol violation, as there.
import type { Expr, Op, Ref } from '../ir/program.ts';
import type { PromelaLayout } from './layout.ts';

/** What an op needs to know about its role and resources. */
export interface OpContext {
  readonly role: number;
  readonly warps: number;
  readonly literal: boolean;
  readonly layout: PromelaLayout;
  /** a folded expression in Promela */
  expr(e: Expr): string;
  /** the resource of a ref: its element count and the global id of element 0 in its space */
  ref(r: Ref): { readonly size: number; readonly first: number };
  /** the role's slot for a token variable */
  token(name: string): number;
  /** the refinement monitor runs (an aref program exported at the mbarrier level): waits and arrives report to it */
  readonly refinement: boolean;
}

// the closing statement: a loop's break may not jump to the end of a d_step (SPIN rejects the label)
export const dstep = (guard: string, body: string): string => `d_step { ${guard} ->\n${indent(body)};\n  SCRATCH_RESET\n}`;
const indent = (text: string): string =>
  text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
/** if cond then `then` else `otherwise` */
const when = (cond: string, then: string, otherwise = 'skip'): string => `if\n:: ${cond} ->\n${indent(then)}\n:: else ->\n${indent(otherwise)}\nfi`;
const ok = (then: string): string => when('viol == 0', then);
const fails = (cond: string, otherwise: string): string => when(cond, 'viol = PROTOCOL', otherwise);
const lines = (...parts: string[]): string => parts.filter((p) => p !== '').join(';\n');

/** `into` := the global id of ref's element; out of range is a protocol violation, else `rest`. */
function withElement(c: OpContext, ref: Ref, into: 's_x' | 's_y', rest: string): string {
  const { size, first } = c.ref(ref);
  return lines(`${into} = ${c.expr(ref.index)}`, fails(`!RANGE(${into}, ${size})`, lines(`${into} = ${into} + ${first}`, rest)));
}

/** As withElement on a barrier (into s_x), which must be initialised (mbarrier.ts `target`). */
function withValidBarrier(c: OpContext, ref: Ref, rest: string): string {
  return withElement(c, ref, 's_x', fails('!bValid[s_x]', rest));
}

/** The guard-side element id (no side effects): `first + index`, with its range condition. */
function peek(c: OpContext, ref: Ref): { inRange: string; id: string } {
  const { size, first } = c.ref(ref);
  const i = c.expr(ref.index);
  return { inRange: `RANGE(${i}, ${size})`, id: `(${first} + ${i})` };
}

/** Outstanding (committed, not retired) groups of the role on a unit, as an expression. */
export function outstanding(unit: 'mma' | 'store', r: number, capacity: number): string {
  const cap = unit === 'mma' ? 'GM' : 'GS';
  const terms = Array.from({ length: capacity }, (_, g) => `(${g} < ${unit}N[${r}] && !${unit}Ret[${r}*${cap} + ${g}] -> 1 : 0)`);
  return terms.length > 0 ? `(${terms.join(' + ')})` : '0';
}

const unitNames = (unit: 'mma' | 'store'): { cap: string; holder: string } => (unit === 'mma' ? { cap: 'GM', holder: 'H_MMA' } : { cap: 'GS', holder: 'H_STORE' });

/** The role's open reads become one committed group (async.ts commit). */
function commit(unit: 'mma' | 'store', r: number): string {
  const { cap, holder } = unitNames(unit);
  return when(
    `${unit}N[${r}] >= ${cap}`,
    'viol = CAPACITY',
    lines(
      `s_g = ${unit}N[${r}]`,
      `s_c = 0`,
      `do :: s_c < S -> ${unit}Sl[(${r}*${cap} + s_g)*S + s_c] = ${unit}Open[${r}*S + s_c]; ${unit}Open[${r}*S + s_c] = 0; s_c++ :: else -> break od`,
      `${unit}Ret[${r}*${cap} + s_g] = 0`,
      `zeroHolder(${holder}(${r}, s_g))`,
      `${unit}N[${r}] = s_g + 1`,
    ),
  );
}

/** wgmma.wait / bulk.wait N: acquire the older groups' reads and drop them (async.ts waitRules). */
function waitGroups(c: OpContext, unit: 'mma' | 'store', pending: Expr): string {
  const r = c.role;
  const { cap, holder } = unitNames(unit);
  const group = (g: string): string => `${r}*${cap} + ${g}`;
  const drop = lines(
    `s_c = ${unit}N[${r}] - s_n`,
    'if :: s_c < 0 -> s_c = 0 :: else -> skip fi',
    's_g = 0',
    `do :: s_g < s_c -> orInto(H_ROLE(${r}), ${holder}(${r}, s_g)); s_g++ :: else -> break od`,
    's_g = 0',
    `do
:: s_g + s_c < ${unit}N[${r}] ->
   ${unit}Ret[${group('s_g')}] = ${unit}Ret[${group('s_g + s_c')}];
   s_j = 0;
   do :: s_j < S -> ${unit}Sl[(${group('s_g')})*S + s_j] = ${unit}Sl[(${group('s_g + s_c')})*S + s_j]; s_j++ :: else -> break od;
   copyHolder(${holder}(${r}, s_g), ${holder}(${r}, s_g + s_c)); s_g++
:: else -> break
od`,
    `do
:: s_g < ${unit}N[${r}] ->
   ${unit}Ret[${group('s_g')}] = 0;
   s_j = 0;
   do :: s_j < S -> ${unit}Sl[(${group('s_g')})*S + s_j] = 0; s_j++ :: else -> break od;
   zeroHolder(${holder}(${r}, s_g)); s_g++
:: else -> break
od`,
    `${unit}N[${r}] = ${unit}N[${r}] - s_c`,
  );
  const n = c.expr(pending);
  const capacity = unit === 'mma' ? c.layout.mmaGroups : c.layout.storeGroups;
  return dstep(`viol == 0 && !(${outstanding(unit, r, capacity)} > ${n})`, lines(`s_n = ${n}`, fails('s_n < 0', drop)));
}

const optional = (c: OpContext, e: Expr | undefined): string => (e === undefined ? 'NOV' : c.expr(e));

/** An arrive that returns its state: the token names barrier s_x at distance 0. */
function setToken(c: OpContext, name: string | undefined): string {
  return name === undefined ? '' : `tok[${c.role}*TK + ${c.token(name)}] = s_x*4`;
}

/** A passing wait: acquire what completed phases released; the waiter now knows the current phase. */
const acquire = (me: string): string => `orInto(${me}, H_BARDONE(s_x)); freshPhase(${me}, s_x); bObs[s_x] = 1`;

/** The Promela of one operation (one or two atomic steps). */
export function opPromela(op: Op, c: OpContext): string {
  const r = c.role;
  const me = `H_ROLE(${r})`;
  switch (op.kind) {
    case 'put': {
      const p = peek(c, op.target);
      return dstep(
        `viol == 0 && (!${p.inRange} || arefE[${p.id}] == 1)`,
        withElement(c, op.target, 's_x', lines(`orInto(${me}, H_AREF(s_x))`, `writeRace(${me}, s_x, 0)`, ok(`doWrite(s_x, ${c.expr(op.value)}, 0, ${me}); arefF[s_x] = 1; arefE[s_x] = 0; orInto(H_AREF(s_x), ${me})`))),
      );
    }
    case 'get': {
      const p = peek(c, op.target);
      return dstep(
        `viol == 0 && (!${p.inRange} || arefF[${p.id}] == 1)`,
        withElement(c, op.target, 's_x', lines(`orInto(${me}, H_AREF(s_x))`, `readRace(${me}, s_x, 0)`, ok(`fifoCheck(s_x, ${optional(c, op.expect)})`), ok(`doRead(s_x, GEN, ${r}, ${me}); arefF[s_x] = 0; arefE[s_x] = 0`))),
      );
    }
    case 'consumed': {
      const effect = `orInto(H_AREF(s_x), ${me}); arefF[s_x] = 0; arefE[s_x] = 1`;
      return dstep('viol == 0', withElement(c, op.target, 's_x', c.literal ? effect : fails('!(arefF[s_x] == 0 && arefE[s_x] == 0)', effect)));
    }
    case 'init':
      return dstep(
        'viol == 0',
        withElement(
          c,
          op.target,
          's_x',
          lines(
            `s_n = ${c.expr(op.count)}`,
            fails(
              'bValid[s_x] || s_n < 1 || s_n > MAXC',
              lines(
                'bValid[s_x] = 1; bPhase[s_x] = 0; bPend[s_x] = s_n; bExp[s_x] = s_n; bTx[s_x] = 0; bObs[s_x] = 1',
                'zeroHolder(H_BARPEND(s_x)); zeroHolder(H_BARDONE(s_x))',
                's_j = 0',
                'do :: s_j < R -> freshPhase(H_ROLE(s_j), s_x); s_j++ :: else -> break od',
              ),
            ),
          ),
        ),
      );
    case 'inval':
      return dstep('viol == 0', withValidBarrier(c, op.target, 'bValid[s_x] = 0'));
    case 'arrive':
      return dstep(
        'viol == 0',
        withValidBarrier(c, op.target, lines(`s_n = ${c.expr(op.count)}`, setToken(c, op.token), `arriveOn(${r}, s_x, s_n)`, c.refinement ? ok('refineConsumed(s_x)') : '')),
      );
    case 'arrive.expect_tx':
      // the missing-wait check comes before expect-tx, so that it is reported as such
      return dstep(
        'viol == 0',
        withValidBarrier(c, op.target, lines(setToken(c, op.token), when('bPhase[s_x] >= 1 && bObs[s_x] == 0', `arriveOn(${r}, s_x, 1)`, lines(`addTx(s_x, ${c.expr(op.bytes)})`, ok(`arriveOn(${r}, s_x, 1)`))))),
      );
    case 'expect_tx':
      return dstep('viol == 0', withValidBarrier(c, op.target, `addTx(s_x, ${c.expr(op.bytes)})`));
    case 'complete_tx':
      return dstep('viol == 0', withValidBarrier(c, op.target, lines(`addTx(s_x, -(${c.expr(op.bytes)}))`, ok('completeIfDone(s_x)'))));
    case 'wait': {
      const p = peek(c, op.target);
      const parity = c.expr(op.parity);
      const b = p.id;
      const blocked = `${p.inRange} && bValid[${b}] && (${parity} == 0 || ${parity} == 1) && (bPhase[${b}] & 1) == ${parity} && !MISSES(bPhase[${b}], DIST(${me}, ${b}), ${parity})`;
      return dstep(
        `viol == 0 && !(${blocked})`,
        withValidBarrier(
          c,
          op.target,
          lines(`s_t = ${parity}`, fails('s_t != 0 && s_t != 1', fails(`MISSES(bPhase[s_x], DIST(${me}, s_x), s_t)`, lines(acquire(me), c.refinement ? 'refineGet(s_x)' : '')))),
        ),
      );
    }
    case 'wait.token': {
      const p = peek(c, op.target);
      const cell = `tok[${r}*TK + ${c.token(op.token)}]`;
      const blocked = `${p.inRange} && ${cell} != NO_TOKEN && bValid[${p.id}] && ${cell} / 4 == ${p.id} && ${cell} % 4 == 0`;
      return dstep(`viol == 0 && !(${blocked})`, withValidBarrier(c, op.target, lines(`s_t = ${cell}`, fails('s_t == NO_TOKEN || s_t / 4 != s_x || s_t % 4 >= 2', acquire(me)))));
    }
    case 'tma.load': {
      const target = c.ref(op.target);
      const barrier = c.ref(op.barrier);
      const push = lines(
        's_c = 0',
        'do :: s_c < TC && tmaUsed[s_c] -> s_c++ :: else -> break od',
        when('s_c == TC', 'viol = CAPACITY', `tmaUsed[s_c] = 1; tmaSlot[s_c] = s_x; tmaSpan[s_c] = s_sp; tmaBar[s_c] = s_y; tmaBytes[s_c] = s_n; tmaVal[s_c] = ${optional(c, op.value)}`),
      );
      const races = lines('s_j = s_x', `do :: viol == 0 && s_j < s_x + s_sp -> writeRace(${me}, s_j, 1); s_j++ :: else -> break od`, ok(push));
      // the slot stays an index until the span is checked against the buffer's end
      const checked = lines(
        `s_sp = ${op.slots === undefined ? '1' : c.expr(op.slots)}`,
        fails(`s_sp < 1 || s_x + s_sp > ${target.size}`, lines(`s_x = s_x + ${target.first}`, fails('!bValid[s_y]', lines(`s_n = ${c.expr(op.bytes)}`, fails('s_n < 0', races))))),
      );
      return dstep(
        'viol == 0',
        lines(
          `s_x = ${c.expr(op.target.index)}`,
          fails(`!RANGE(s_x, ${target.size})`, lines(`s_y = ${c.expr(op.barrier.index)}`, fails(`!RANGE(s_y, ${barrier.size})`, lines(`s_y = s_y + ${barrier.first}`, checked)))),
        ),
      );
    }
    case 'tma.store':
      return dstep('viol == 0', withElement(c, op.target, 's_x', lines(`readRace(${me}, s_x, 1)`, ok(`storeOpen[${r}*S + s_x] = 1`))));
    case 'bulk.commit':
      return dstep('viol == 0', commit('store', r));
    case 'bulk.wait':
      return waitGroups(c, 'store', op.pending);
    case 'wgmma.issue':
      return dstep(
        'viol == 0',
        withElement(c, op.target, 's_x', lines(`readRace(${me}, s_x, 1)`, ok(`fifoCheck(s_x, ${optional(c, op.expect)})`), ok(lines(`mmaOpen[${r}*S + s_x] = 1`, op.commit ? commit('mma', r) : '')))),
      );
    case 'wgmma.commit':
      return dstep('viol == 0', commit('mma', r));
    case 'wgmma.wait':
      return waitGroups(c, 'mma', op.pending);
    case 'bar.sync':
      // two steps: arrive (and wait unless this arrival completed the barrier), then leave once released
      return lines(
        dstep('viol == 0', lines(`arriveNamed(${r}, ${c.expr(op.id)}, ${c.expr(op.threads)}, ${c.warps})`, ok(when('!found', `barState[${r}] = BAR_WAITING; waitId[${r}] = s_t`)))),
        dstep(`viol == 0 && barState[${r}] != BAR_WAITING`, `barState[${r}] = BAR_FREE`),
      );
    case 'bar.arrive':
      return dstep('viol == 0', `arriveNamed(${r}, ${c.expr(op.id)}, ${c.expr(op.threads)}, ${c.warps})`);
    case 'fence.proxy.async':
      return dstep('viol == 0', `fenceProxyAsync(${r})`);
    case 'read':
      return dstep('viol == 0', withElement(c, op.target, 's_x', lines(`readRace(${me}, s_x, 0)`, ok(`fifoCheck(s_x, ${optional(c, op.expect)})`), ok(`doRead(s_x, GEN, ${r}, ${me})`))));
    case 'write':
      return dstep('viol == 0', withElement(c, op.target, 's_x', lines(`writeRace(${me}, s_x, 0)`, ok(`doWrite(s_x, ${optional(c, op.value)}, 1, ${me})`))));
    case 'atomic':
      throw new Error('unreachable: toPromela refuses programs with atomics');
  }
}

/** fence.proxy.async (named.ts): the role's first fence after each generic write it knows of, and its known generic reads fenced. */
export const FENCE_PROXY_ASYNC = `inline fenceProxyAsync(r) {
  fp_x = 0;
  do
  :: fp_x < S ->
     if
     :: slotGen[fp_x] && PRESENT(EV_WRITE(fp_x)) && HAS(H_ROLE(r), EV_WRITE(fp_x)) && !PRESENT(EV_FENCE(fp_x, r)) -> freshEvent(EV_FENCE(fp_x, r), H_ROLE(r))
     :: else -> skip
     fi;
     fp_q = 0;
     do
     :: fp_q < R ->
        if
        :: PRESENT(EV_READ(fp_x, GEN, fp_q)) && HAS(H_ROLE(r), EV_READ(fp_x, GEN, fp_q)) -> SETB(H_PRESENT, EV_RFENCE(fp_x, fp_q)); SETB(H_ROLE(r), EV_RFENCE(fp_x, fp_q))
        :: else -> skip
        fi;
        fp_q++
     :: else -> break
     od;
     fp_x++
  :: else -> break
  od
}
`;

/** Named-barrier arrival (named.ts arriveNamed): `found` = 1 when it completed the barrier, `s_t` = the id. */
export const ARRIVE_NAMED = `inline arriveNamed(r, id, nt, warps) {
  found = 0; s_t = id; s_n = nt;
  if
  :: s_t < 0 || s_t >= NB_IDS || s_n <= 0 || s_n % 32 != 0 -> viol = PROTOCOL
  :: else ->
     if
     :: (nThreads[s_t] != 0 && nThreads[s_t] != s_n) || nCount[s_t] + warps*32 > s_n -> viol = PROTOCOL
     :: else ->
        nThreads[s_t] = s_n; nCount[s_t] = nCount[s_t] + warps*32; orInto(H_NAMED(s_t), H_ROLE(r));
        if
        :: nCount[s_t] >= s_n ->
           nm_w = 0;
           do
           :: nm_w < R ->
              if
              :: barState[nm_w] == BAR_WAITING && waitId[nm_w] == s_t -> orInto(H_ROLE(nm_w), H_NAMED(s_t)); barState[nm_w] = BAR_RELEASED
              :: else -> skip
              fi;
              nm_w++
           :: else -> break
           od;
           orInto(H_ROLE(r), H_NAMED(s_t)); nCount[s_t] = 0; nThreads[s_t] = 0; zeroHolder(H_NAMED(s_t)); found = 1
        :: else -> skip
        fi
     fi
  fi
}
`;
