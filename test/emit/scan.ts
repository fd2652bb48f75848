// A small interpreter for the PTX this backend emits, used to read the synchronization of each
// role back out of the text (the structural test). It runs one thread of the kernel from the
// entry with concrete params: integer instructions and branches are executed, every try_wait
// succeeds at once, and each sync or shared-memory instruction is recorded with the resource
// slot its address decodes to. Float and global-memory instructions are skipped. It knows only
// the instruction forms the emitter writes (the real PTX parser and lifter are src/ptx/parse).

export interface ScanEvent {
  /** Region: `prologue`, the role name, or `epilogue NAME`. */
  readonly region: string;
  readonly text: string;
}

export interface ScanOptions {
  /** %tid.x of the thread to run. */
  readonly thread: number;
  readonly ctaid?: number;
  /** %nctaid.x (grid size); default 1. */
  readonly nctaid?: number;
  /** Values of the kernel's .param names (Program params and the family's arguments). */
  readonly params: Readonly<Record<string, number>>;
  /** Bytes per gemm k-tile column step (BK) to turn TMA coordinates into tile indices. */
  readonly bk?: number;
  /** Stream chunk bytes, to turn global addresses into chunk indices. */
  readonly chunkBytes?: number;
  readonly maxSteps?: number;
}

interface Instr {
  readonly guard?: { readonly reg: string; readonly neg: boolean };
  readonly opcode: string;
  readonly operands: readonly string[];
  readonly line: number;
}
type Item = { readonly kind: 'ins'; readonly ins: Instr } | { readonly kind: 'marker'; readonly region: string };

interface Region {
  readonly name: string;
  readonly kind: 'barrier' | 'buffer' | 'extra';
  readonly base: number;
  readonly size: number;
  readonly slotBytes: number;
}

const BAR_BASE = 0x100000;
/** Fake global addresses of the stream arguments, far apart. */
const GLOBAL_X = 0x1_0000_0000n;
const GLOBAL_Y = 0x2_0000_0000n;

export function scanThread(ptx: string, opts: ScanOptions): ScanEvent[] {
  const { items, labels, regions, symbols } = parse(ptx);
  const regs = new Map<string, bigint>();
  const events: ScanEvent[] = [];
  let region = 'prologue';
  const params: Record<string, bigint> = { arg_x: GLOBAL_X, arg_y: GLOBAL_Y, arg_c: 0x3_0000_0000n, arg_tmap_a: 0x10n, arg_tmap_b: 0x20n, arg_alpha: 0n, arg_beta: 0n };
  for (const [k, v] of Object.entries(opts.params)) params[k] = BigInt(v);
  const special: Record<string, bigint> = { '%tid.x': BigInt(opts.thread), '%ctaid.x': BigInt(opts.ctaid ?? 0), '%nctaid.x': BigInt(opts.nctaid ?? 1) };

  const value = (o: string): bigint => {
    const t = o.trim();
    if (/^-?\d+$/.test(t)) return BigInt(t);
    if (/^0x[0-9a-fA-F]+$/.test(t)) return BigInt(t);
    if (t in special) return special[t] ?? 0n;
    if (t.startsWith('%')) {
      const v = regs.get(t);
      if (v === undefined) throw new Error(`scan: register ${t} read before written`);
      return v;
    }
    const sym = symbols.get(t);
    if (sym !== undefined) return BigInt(sym);
    const p = params[t];
    if (p !== undefined) return p;
    throw new Error(`scan: unknown operand ${t}`);
  };
  const address = (o: string): number => {
    const m = /^\[(.+)\]$/.exec(o.trim());
    if (!m?.[1]) throw new Error(`scan: not an address: ${o}`);
    const [base, off] = m[1].split('+');
    return Number(value(base ?? '')) + (off === undefined ? 0 : Number(off));
  };
  const where = (addr: number): { region: Region; slot: number; offset: number } => {
    for (const r of regions) {
      if (addr >= r.base && addr < r.base + r.size) {
        const rel = addr - r.base;
        return { region: r, slot: Math.floor(rel / r.slotBytes), offset: rel % r.slotBytes };
      }
    }
    throw new Error(`scan: address ${addr} is in no shared resource`);
  };
  /** A 32-bit operand as the signed value it stands for. */
  const int = (o: string | undefined): bigint => BigInt.asIntN(32, value(o ?? ''));
  const ref = (addr: number): string => {
    const w = where(addr);
    return `${w.region.name}[${w.slot}]`;
  };
  const record = (text: string): void => {
    events.push({ region, text });
  };

  let pc = 0;
  let steps = 0;
  const max = opts.maxSteps ?? 5_000_000;
  while (pc < items.length) {
    if (++steps > max) throw new Error('scan: step limit');
    const item = items[pc++];
    if (!item) break;
    if (item.kind === 'marker') {
      region = item.region;
      continue;
    }
    const ins = item.ins;
    if (ins.guard) {
      const g = regs.get(ins.guard.reg);
      if (g === undefined) throw new Error(`scan: guard ${ins.guard.reg} unset at line ${ins.line}`);
      if ((g !== 0n) === ins.guard.neg) continue;
    }
    const [op, ...mods] = ins.opcode.split('.');
    const ops = ins.operands;
    const type = mods[mods.length - 1] ?? '';
    const width = /64$/.test(type) ? 64 : 32;
    const signed = type.startsWith('s');
    const norm = (v: bigint): bigint => BigInt.asUintN(width, v);
    const sv = (o: string): bigint => (signed ? BigInt.asIntN(width, value(o)) : BigInt.asUintN(width, value(o)));
    const set = (r: string | undefined, v: bigint): void => {
      if (r === undefined) throw new Error(`scan: missing destination at line ${ins.line}`);
      regs.set(r, v);
    };
    const d = ops[0];
    switch (op) {
      case 'mov':
        if (type === 'pred') set(d, value(ops[1] ?? '0') !== 0n ? 1n : 0n);
        else if (type === 'f32') set(d, 0n);
        else set(d, norm(value(ops[1] ?? '')));
        break;
      case 'ld':
        if (mods[0] === 'param') set(d, value((ops[1] ?? '').replace(/[[\]]/g, '')));
        else if (mods.includes('shared')) {
          const w = where(address(ops[1] ?? ''));
          if (w.region.kind === 'buffer') record(`read ${w.region.name}[${w.slot}]`);
          if (!d?.startsWith('{')) set(d, 0n);
          else for (const r of d.replace(/[{}]/g, '').split(',')) regs.set(r.trim(), 0n);
        } else throw new Error(`scan: unexpected ${ins.opcode}`);
        break;
      case 'st':
        if (mods.includes('shared')) {
          const w = where(address(d ?? ''));
          if (w.region.kind === 'buffer') record(`write ${w.region.name}[${w.slot}]`);
        } else if (mods.includes('global') && opts.chunkBytes !== undefined) {
          const off = BigInt(address(d ?? '')) - GLOBAL_Y;
          record(`store chunk ${off / BigInt(opts.chunkBytes)}`);
        }
        break;
      case 'add': case 'sub': case 'mul': case 'div': case 'rem': case 'and': case 'or': case 'xor':
      case 'shl': case 'shr': case 'min': case 'max': {
        if (type === 'f32' || mods.includes('f32')) {
          set(d, 0n);
          break;
        }
        const a = sv(ops[1] ?? '');
        const c = sv(ops[2] ?? '');
        let r: bigint;
        if (op === 'mul' && mods[0] === 'wide') {
          const w32 = (o: string): bigint => (signed ? BigInt.asIntN(32, value(o)) : BigInt.asUintN(32, value(o)));
          set(d, BigInt.asUintN(64, w32(ops[1] ?? '') * w32(ops[2] ?? '')));
          break;
        }
        switch (op) {
          case 'add': r = a + c; break;
          case 'sub': r = a - c; break;
          case 'mul': r = a * c; break;
          case 'div': r = a / c; break; // BigInt division truncates, like div.s32
          case 'rem': r = a % c; break;
          case 'and': r = a & c; break;
          case 'or': r = a | c; break;
          case 'xor': r = a ^ c; break;
          case 'shl': r = c >= BigInt(width) ? 0n : a << c; break;
          case 'shr': r = a >> (c >= BigInt(width) ? BigInt(width - 1) : c); break;
          case 'min': r = a < c ? a : c; break;
          default: r = a > c ? a : c;
        }
        set(d, norm(r));
        break;
      }
      case 'mad': {
        if (mods.includes('wide')) throw new Error('scan: mad.wide not expected');
        set(d, norm(sv(ops[1] ?? '') * sv(ops[2] ?? '') + sv(ops[3] ?? '')));
        break;
      }
      case 'neg':
        set(d, norm(-sv(ops[1] ?? '')));
        break;
      case 'cvt':
        if (ins.opcode.includes('x2')) set(d, 0n);
        else set(d, BigInt.asUintN(64, value(ops[1] ?? '')));
        break;
      case 'cvta':
        set(d, value(ops[1] ?? ''));
        break;
      case 'setp': {
        const cmp = mods[0] ?? '';
        const a = sv(ops[1] ?? '');
        const c = sv(ops[2] ?? '');
        let r = cmp === 'eq' ? a === c : cmp === 'ne' ? a !== c : cmp === 'lt' ? a < c : cmp === 'le' ? a <= c : cmp === 'gt' ? a > c : a >= c;
        if (mods.length === 3) {
          const q = value(ops[3] ?? '') !== 0n;
          r = mods[1] === 'and' ? r && q : r || q;
        }
        set(d, r ? 1n : 0n);
        break;
      }
      case 'selp':
        set(d, value(ops[3] ?? '') !== 0n ? value(ops[1] ?? '') : value(ops[2] ?? ''));
        break;
      case 'bra': {
        const target = labels.get(d ?? '');
        if (target === undefined) throw new Error(`scan: no label ${d}`);
        pc = target;
        break;
      }
      case 'ret':
        return events;
      case 'trap':
        throw new Error(`scan: trap at line ${ins.line}`);
      case 'mbarrier': {
        const kind = mods[0] ?? '';
        if (kind === 'try_wait') {
          record(`wait ${ref(address(ops[1] ?? ''))} ${int(ops[2])}`);
          set(d, 1n);
        } else if (kind === 'arrive' && mods[1] === 'expect_tx') record(`arrive.expect_tx ${ref(address(ops[1] ?? ''))} ${int(ops[2])}`);
        else if (kind === 'arrive') record(`arrive ${ref(address(ops[1] ?? ''))} ${ops[2] === undefined ? 1 : int(ops[2])}`);
        else if (kind === 'init') record(`init ${ref(address(d ?? ''))} ${int(ops[1])}`);
        else if (kind === 'expect_tx' || kind === 'complete_tx') record(`${kind} ${ref(address(d ?? ''))} ${int(ops[1])}`);
        else if (kind === 'inval') record(`inval ${ref(address(d ?? ''))}`);
        else throw new Error(`scan: unexpected ${ins.opcode}`);
        break;
      }
      case 'cp': {
        const bar = ref(address(ops[ops.length - 1] ?? ''));
        const dst = ref(address(d ?? ''));
        if (mods.includes('tensor')) {
          const coord = /\{\s*([^,]+),/.exec(ops.slice(1).join(','));
          const k = Number(value(coord?.[1] ?? '0'));
          record(`tma ${dst} -> ${bar} value ${k / (opts.bk ?? 1)}`);
        } else if (mods.includes('bulk') && mods.includes('global') && mods[2] === 'shared::cluster') {
          const src = BigInt(address(ops[1] ?? '')) - GLOBAL_X;
          record(`tma ${dst} -> ${bar} bytes ${int(ops[2])} value ${src / BigInt(opts.chunkBytes ?? 1)}`);
        } else record(ins.opcode);
        break;
      }
      case 'wgmma': {
        const kind = mods[0] ?? '';
        if (kind === 'mma_async') {
          const desc = value(ops[1] ?? '0');
          const addr = Number(desc & 0x3fffn) << 4;
          const w = where(addr);
          record(`mma ${w.region.name}[${w.slot}]`);
        } else if (kind === 'commit_group') record('wgmma.commit');
        else if (kind === 'wait_group') record(`wgmma.wait ${value(ops[0] ?? '')}`);
        break;
      }
      case 'bar':
        record(`bar.${mods[0]} ${value(ops[0] ?? '')} ${ops[1] === undefined ? 'all' : value(ops[1])}`);
        break;
      case 'fence':
        record(ins.opcode);
        break;
      case 'setmaxnreg':
        break;
      default:
        throw new Error(`scan: unexpected instruction ${ins.opcode} at line ${ins.line}`);
    }
  }
  return events;
}

/** Folds the raw events into Program-level ops: mma runs → wgmma.issue, copies → tma.load, reads + stores → read expect. */
export function foldEvents(events: readonly ScanEvent[]): ScanEvent[] {
  const out: ScanEvent[] = [];
  for (const e of events) {
    const last = out[out.length - 1];
    const same = last !== undefined && last.region === e.region;
    if (e.text.startsWith('mma ')) {
      const issue = `wgmma.issue ${e.text.slice(4)}`;
      if (same && last.text === issue) continue;
      out.push({ region: e.region, text: issue });
    } else if (e.text.startsWith('tma ')) {
      const load = `tma.load ${e.text.slice(4)}`;
      if (same && last.text === load) continue;
      out.push({ region: e.region, text: load });
    } else if (e.text.startsWith('read ')) {
      if (same && last.text.startsWith(e.text)) continue;
      out.push(e);
    } else if (e.text.startsWith('store chunk ')) {
      const chunk = e.text.slice('store chunk '.length);
      if (same && last.text.startsWith('read ')) {
        const m = / expect (\S+)$/.exec(last.text);
        if (m?.[1] === chunk) continue;
        if (!m) {
          out[out.length - 1] = { region: e.region, text: `${last.text} expect ${chunk}` };
          continue;
        }
      }
      out.push(e);
    } else out.push(e);
  }
  return out;
}

function parse(ptx: string): { items: Item[]; labels: Map<string, number>; regions: Region[]; symbols: Map<string, number> } {
  const lines = ptx.split('\n');
  const regions: Region[] = [];
  const symbols = new Map<string, number>();
  let nextBar = BAR_BASE;
  for (const l of lines) {
    const bar = /^\.shared \.align 8 \.b64 (\w+)\[(\d+)\];/.exec(l);
    if (bar?.[1] && bar[2]) {
      regions.push({ name: bar[1], kind: 'barrier', base: nextBar, size: Number(bar[2]) * 8, slotBytes: 8 });
      symbols.set(bar[1], nextBar);
      nextBar += 0x1000;
    }
    const buf = /^\/\/ arefcheck-buffer (\w+) slots (\d+) bytes (\d+) offset (\d+)/.exec(l);
    if (buf?.[1]) {
      const slots = Number(buf[2]);
      const bytes = Number(buf[3]);
      regions.push({ name: buf[1], kind: 'buffer', base: Number(buf[4]), size: slots * bytes, slotBytes: bytes });
    }
  }
  symbols.set('arefcheck_smem', 0);
  const bufEnd = Math.max(0, ...regions.filter((r) => r.kind === 'buffer').map((r) => Math.ceil((r.base + r.size) / 1024) * 1024));
  regions.push({ name: 'extra', kind: 'extra', base: bufEnd, size: BAR_BASE - bufEnd, slotBytes: BAR_BASE });

  const items: Item[] = [];
  const labels = new Map<string, number>();
  const start = lines.findIndex((l) => l === '{');
  for (let i = start + 1; i < lines.length; i++) {
    const raw = lines[i] ?? '';
    const t = raw.trim();
    if (t === '}' || t === '') continue;
    const marker = /^\/\/ arefcheck (role (\w+) (begin|end)|epilogue (\w+))/.exec(t);
    if (marker) {
      const region = marker[4] !== undefined ? `epilogue ${marker[4]}` : marker[3] === 'begin' ? (marker[2] ?? '') : `after ${marker[2]}`;
      items.push({ kind: 'marker', region });
      continue;
    }
    if (t.startsWith('//') || t.startsWith('.reg')) continue;
    const label = /^(\$?[\w$]+):$/.exec(t);
    if (label?.[1]) {
      labels.set(label[1], items.length);
      continue;
    }
    const m = /^(?:@(!?)(%\w+)\s+)?([\w.:]+)\s*(.*?);$/.exec(t);
    if (!m?.[3]) throw new Error(`scan: cannot read line ${i + 1}: ${t}`);
    const guard = m[2] === undefined ? undefined : { reg: m[2], neg: m[1] === '!' };
    items.push({ kind: 'ins', ins: { ...(guard ? { guard } : {}), opcode: m[3], operands: splitOperands(m[4] ?? ''), line: i + 1 } });
  }
  return { items, labels, regions, symbols };
}

function splitOperands(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '{' || ch === '[') depth++;
    if (ch === '}' || ch === ']') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim() !== '') out.push(cur.trim());
  return out;
}
