// The fixed part of an exported model: the state declarations and the rules every op family
// shares, as Promela macros and inlines that follow semantics/ rule by rule (hb.ts, access.ts,
// mbarrier.ts, async.ts). Scratch variables are `hidden`: they never carry anything from one
// d_step to the next, so they stay out of the state vector.
import { NO_VALUE } from '../../semantics/index.ts';
import { MAX_COUNT } from '../../semantics/mbarrier.ts';
import { eventsPerSlot, WORD_BITS, type PromelaLayout } from './layout.ts';

/** Violation classes as the model records them in `viol` (the monitor asserts each one away). */
export const VIOLATION_CODES = { race: 1, fifo: 2, protocol: 3, capacity: 4, refinement: 5 } as const;

/** "No value": the checker's NO_VALUE (−2^31, the most negative Promela int, written so pan's C accepts it). */
export const PROMELA_NO_VALUE = `(${NO_VALUE + 1}-1)`;

const arr = (n: number): number => Math.max(1, n);

/** Scratch variables of the rules (and of the refinement monitor, declared there). */
const SCRATCH = ['s_x', 's_y', 's_v', 's_n', 's_sp', 's_t', 's_j', 's_c', 's_g', 'found', 'ce_h', 'or_w', 'z_w', 'cp_w', 'ap_h', 'at_i', 'at_t', 'tc_i', 'rf_r', 'rf_g', 'kf_r', 'wr_q', 'dw_q', 'ln_j', 'nm_w', 'fp_x', 'fp_q', 's_m'];

/**
 * `hidden` keeps the scratch out of the state vector; pan's multi-core build refuses hidden
 * variables, so there they are plain globals that every step zeroes at its end (SCRATCH_RESET),
 * which keeps equal states equal.
 */
function scratchDeclarations(multicore: boolean): string {
  if (!multicore) return `hidden int ${SCRATCH.join(', ')};\n#define SCRATCH_RESET skip`;
  return `int ${SCRATCH.join(', ')};\n#define SCRATCH_RESET ${SCRATCH.map((v) => `${v} = 0`).join('; ')}`;
}

export function prelude(l: PromelaLayout, multicore = false): string {
  const V = VIOLATION_CODES;
  return `/* ---- sizes ---------------------------------------------------------------------- */
#define R ${l.roles}
#define S ${l.slots}
#define A ${l.arefSlots}
#define B ${l.barriers}
#define NB ${l.named}
#define NB_IDS ${l.namedIds}
#define TK ${l.tokens}
#define GM ${l.mmaGroups}
#define GS ${l.storeGroups}
#define TC ${l.tmaFlights}
#define W ${l.words}
#define H ${l.holders}
#define MAXC ${MAX_COUNT}
#define NOV ${PROMELA_NO_VALUE}
#define RANGE(i, n) ((i) >= 0 && (i) < (n))

/* ---- violations: set once, then every process stops and the monitor asserts ----- */
#define RACE ${V.race}
#define FIFO ${V.fifo}
#define PROTOCOL ${V.protocol}
#define CAPACITY ${V.capacity}
byte viol;
byte rolesDone;

/* ---- happens-before knowledge (semantics/hb.ts): one row of W words per holder ---- */
#define PER_SLOT ${eventsPerSlot(l.roles)}
#define GEN 0
#define WGMMA 1
#define STORE 2
#define EV_WRITE(x) ((x)*PER_SLOT)
#define EV_FENCE(x, r) ((x)*PER_SLOT + 1 + (r))
#define EV_READ(x, k, r) ((x)*PER_SLOT + 1 + R + (k)*R + (r))
#define EV_RFENCE(x, r) ((x)*PER_SLOT + 1 + 4*R + (r))
#define PB(b, t) (S*PER_SLOT + 2*(b) + (t))
#define H_PRESENT 0
#define H_ROLE(r) (1 + (r))
#define H_BARPEND(b) (1 + R + (b))
#define H_BARDONE(b) (1 + R + B + (b))
#define H_AREF(a) (1 + R + 2*B + (a))
#define H_NAMED(i) (1 + R + 2*B + A + (i))
#define H_MMA(r, g) (1 + R + 2*B + A + NB + (r)*GM + (g))
#define H_STORE(r, g) (1 + R + 2*B + A + NB + R*GM + (r)*GS + (g))
#define WORD(h, e) K[(h)*W + (e)/${WORD_BITS}]
#define HAS(h, e) ((WORD(h, e) >> ((e)%${WORD_BITS})) & 1)
#define SETB(h, e) WORD(h, e) = WORD(h, e) | (1 << ((e)%${WORD_BITS}))
#define CLRB(h, e) WORD(h, e) = WORD(h, e) & ~(1 << ((e)%${WORD_BITS}))
#define PRESENT(e) HAS(H_PRESENT, e)
int K[H*W];

/* ---- shared slots, arefs, mbarriers, named barriers -------------------------------- */
int slotVal[${arr(l.slots)}] = NOV;
bit slotGen[${arr(l.slots)}];
bit arefF[${arr(l.arefSlots)}];
bit arefE[${arr(l.arefSlots)}] = 1;
bit bValid[${arr(l.barriers)}];
int bPhase[${arr(l.barriers)}];
int bPend[${arr(l.barriers)}];
int bExp[${arr(l.barriers)}];
int bTx[${arr(l.barriers)}];
bit bObs[${arr(l.barriers)}] = 1;
int nCount[${arr(l.named)}];
int nThreads[${arr(l.named)}];

/* ---- roles and their asynchronous units -------------------------------------------- */
#define BAR_FREE 0
#define BAR_WAITING 1
#define BAR_RELEASED 2
#define NO_TOKEN (-1)
byte barState[R];
byte waitId[R];
int tok[R*TK] = NO_TOKEN;
bit mmaOpen[${arr(l.roles * l.slots * (l.mmaGroups > 0 ? 1 : 0))}];
byte mmaN[R];
bit mmaRet[${arr(l.roles * l.mmaGroups)}];
bit mmaSl[${arr(l.roles * l.mmaGroups * l.slots)}];
bit storeOpen[${arr(l.roles * l.slots * (l.storeGroups > 0 ? 1 : 0))}];
byte storeN[R];
bit storeRet[${arr(l.roles * l.storeGroups)}];
bit storeSl[${arr(l.roles * l.storeGroups * l.slots)}];
bit tmaUsed[${arr(l.tmaFlights)}];
byte tmaSlot[${arr(l.tmaFlights)}];
byte tmaSpan[${arr(l.tmaFlights)}];
byte tmaBar[${arr(l.tmaFlights)}];
int tmaBytes[${arr(l.tmaFlights)}];
int tmaVal[${arr(l.tmaFlights)}];

/* ---- scratch (never live across steps) ---------------------------------------------- */
${scratchDeclarations(multicore)}

/* ---- knowledge (semantics/hb.ts) ---------------------------------------------------- */
inline clearEverywhere(e) {
  ce_h = 1;
  do :: ce_h < H -> CLRB(ce_h, e); ce_h++ :: else -> break od
}
inline freshEvent(e, owner) { clearEverywhere(e); SETB(H_PRESENT, e); SETB(owner, e) }
inline retireEvent(e) {
  if :: PRESENT(e) -> clearEverywhere(e); CLRB(H_PRESENT, e) :: else -> skip fi
}
inline orInto(dst, src) {
  or_w = 0;
  do :: or_w < W -> K[(dst)*W + or_w] = K[(dst)*W + or_w] | K[(src)*W + or_w]; or_w++ :: else -> break od
}
inline zeroHolder(dst) {
  z_w = 0;
  do :: z_w < W -> K[(dst)*W + z_w] = 0; z_w++ :: else -> break od
}
inline copyHolder(dst, src) {
  cp_w = 0;
  do :: cp_w < W -> K[(dst)*W + cp_w] = K[(src)*W + cp_w]; cp_w++ :: else -> break od
}
/* phase knowledge: FRESH_0 = (d < 1), FRESH_1 = (d < 2) per barrier */
inline freshPhase(hk, b) { SETB(hk, PB(b, 0)); SETB(hk, PB(b, 1)) }
inline agePhase(b) {
  ap_h = 1;
  do
  :: ap_h < H ->
     if :: HAS(ap_h, PB(b, 0)) -> SETB(ap_h, PB(b, 1)) :: else -> CLRB(ap_h, PB(b, 1)) fi;
     CLRB(ap_h, PB(b, 0)); ap_h++
  :: else -> break
  od
}
#define DIST(hk, b) (HAS(hk, PB(b, 0)) -> 0 : (HAS(hk, PB(b, 1)) -> 1 : 2))
/* hb.ts waitMisses: the parity names a phase 2 or more behind the barrier */
#define MISSES(ph, d, p) ((d) == 2 || ((d) == 1 && (((ph) - 2) & 1) == (p)))

/* ---- mbarriers (semantics/mbarrier.ts) ----------------------------------------------- */
inline ageTokens(b) {
  at_i = 0;
  do
  :: at_i < R*TK ->
     at_t = tok[at_i];
     if :: at_t != NO_TOKEN && at_t / 4 == (b) && at_t % 4 < 2 -> tok[at_i] = at_t + 1 :: else -> skip fi;
     at_i++
  :: else -> break
  od
}
inline completeIfDone(b) {
  if
  :: bPend[b] == 0 && bTx[b] == 0 ->
     bPhase[b] = bPhase[b] + 1; bPend[b] = bExp[b]; bObs[b] = 0;
     agePhase(b); ageTokens(b);
     orInto(H_BARDONE(b), H_BARPEND(b)); zeroHolder(H_BARPEND(b))
  :: else -> skip
  fi
}
inline arriveOn(r, b, cnt) {
  if
  :: bPhase[b] >= 1 && bObs[b] == 0 -> viol = PROTOCOL
  :: else ->
     if
     :: cnt < 1 || cnt > bPend[b] -> viol = PROTOCOL
     :: else -> bPend[b] = bPend[b] - cnt; orInto(H_BARPEND(b), H_ROLE(r)); completeIfDone(b)
     fi
  fi
}
inline addTx(b, delta) {
  bTx[b] = bTx[b] + (delta);
  if :: bTx[b] > MAXC || bTx[b] < -MAXC -> viol = PROTOCOL :: else -> skip fi
}

/* ---- accesses and races (semantics/access.ts) ----------------------------------------- */
inline tmaCovers(sl) {
  found = 0; tc_i = 0;
  do
  :: tc_i < TC -> if :: tmaUsed[tc_i] && sl >= tmaSlot[tc_i] && sl < tmaSlot[tc_i] + tmaSpan[tc_i] -> found = 1 :: else -> skip fi; tc_i++
  :: else -> break
  od
}
inline readerInFlight(sl) {
  found = 0; rf_r = 0;
  do
  :: rf_r < R ->
${l.mmaGroups > 0 ? `     if :: mmaOpen[rf_r*S + sl] -> found = 1 :: else -> skip fi;
     rf_g = 0;
     do :: rf_g < mmaN[rf_r] -> if :: !mmaRet[rf_r*GM + rf_g] && mmaSl[(rf_r*GM + rf_g)*S + sl] -> found = 1 :: else -> skip fi; rf_g++ :: else -> break od;
` : ''}${l.storeGroups > 0 ? `     if :: storeOpen[rf_r*S + sl] -> found = 1 :: else -> skip fi;
     rf_g = 0;
     do :: rf_g < storeN[rf_r] -> if :: !storeRet[rf_r*GS + rf_g] && storeSl[(rf_r*GS + rf_g)*S + sl] -> found = 1 :: else -> skip fi; rf_g++ :: else -> break od;
` : ''}     rf_r++
  :: else -> break
  od
}
/* some role's proxy fence after the slot's last write is known to hk */
inline knowsAFence(hk, sl) {
  found = 0; kf_r = 0;
  do :: kf_r < R -> if :: PRESENT(EV_FENCE(sl, kf_r)) && HAS(hk, EV_FENCE(sl, kf_r)) -> found = 1 :: else -> skip fi; kf_r++ :: else -> break od
}
inline unfencedWrite(hk, sl) {
  if
  :: PRESENT(EV_WRITE(sl)) && slotGen[sl] -> knowsAFence(hk, sl); if :: !found -> viol = RACE :: else -> skip fi
  :: else -> skip
  fi
}
inline writeRace(hk, sl, async) {
  tmaCovers(sl);
  if :: found -> viol = RACE :: else -> readerInFlight(sl); if :: found -> viol = RACE :: else -> skip fi fi;
  if :: viol == 0 && PRESENT(EV_WRITE(sl)) && !HAS(hk, EV_WRITE(sl)) -> viol = RACE :: else -> skip fi;
  wr_q = 0;
  do
  :: wr_q < 3*R -> if :: PRESENT(EV_READ(sl, wr_q / R, wr_q % R)) && !HAS(hk, EV_READ(sl, wr_q / R, wr_q % R)) -> viol = RACE :: else -> skip fi; wr_q++
  :: else -> break
  od;
  if
  :: viol == 0 && async ->
     unfencedWrite(hk, sl);
     wr_q = 0;
     do
     :: wr_q < R ->
        if
        :: PRESENT(EV_READ(sl, GEN, wr_q)) && !(PRESENT(EV_RFENCE(sl, wr_q)) && HAS(hk, EV_RFENCE(sl, wr_q))) -> viol = RACE
        :: else -> skip
        fi;
        wr_q++
     :: else -> break
     od
  :: else -> skip
  fi
}
inline readRace(hk, sl, async) {
  tmaCovers(sl);
  if :: found -> viol = RACE :: else -> skip fi;
  if :: viol == 0 && PRESENT(EV_WRITE(sl)) && !HAS(hk, EV_WRITE(sl)) -> viol = RACE :: else -> skip fi;
  if :: viol == 0 && async -> unfencedWrite(hk, sl) :: else -> skip fi
}
inline doWrite(sl, val, generic, owner) {
  slotVal[sl] = val; slotGen[sl] = generic;
  dw_q = 0;
  do
  :: dw_q < R -> retireEvent(EV_FENCE(sl, dw_q)); retireEvent(EV_RFENCE(sl, dw_q)); dw_q++
  :: else -> break
  od;
  dw_q = 0;
  do :: dw_q < 3*R -> retireEvent(EV_READ(sl, dw_q / R, dw_q % R)); dw_q++ :: else -> break od;
  freshEvent(EV_WRITE(sl), owner)
}
inline doRead(sl, kind, r, owner) {
  if :: kind == GEN -> retireEvent(EV_RFENCE(sl, r)) :: else -> skip fi;
  freshEvent(EV_READ(sl, kind, r), owner)
}
inline fifoCheck(sl, expect) {
  if :: expect != NOV && slotVal[sl] != expect -> viol = FIFO :: else -> skip fi
}
`;
}
