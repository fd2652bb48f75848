// Counterexample files: one violation of a report as ITF-shaped JSON (Apalache ADR-015, the
// trace format Quint writes), carrying what `arefcheck replay` needs to re-run it exactly: the
// level, the params and the consumed rule it was checked with, and for each step the position of
// its action among the actions enabled before it.
import { readLiftRecipe, type LiftRecipe } from '../ptx/lift/recipe.ts';
import { InputError } from '../diag.ts';
import type { Level, Loc, Program } from '../ir/program.ts';
import { readJson, type JsonEntry, type JsonNode } from '../lang/json-reader.ts';
import type { Report } from './report.ts';
import { traceValuations, VALUATION_VARS, type Valuation } from './valuation.ts';

/** How trace files are laid out (json-out.ts): the top levels on their own lines, each state one line. */
export const TRACE_LAYOUT = { depth: 2 } as const;

export const ITF_FORMAT_DESCRIPTION = 'https://apalache-mc.org/docs/adr/015adr-trace.html';

/** How the report was obtained, beyond the program file: needed to replay it. */
export interface TraceContext {
  /** Every param of the program checked, with overrides applied. */
  readonly params: Readonly<Record<string, number>>;
  readonly literal: boolean;
  /** The program checked: when given, every state carries its full valuation (roles, slots, barriers, copies, groups). */
  readonly program?: Program;
  /** lifted PTX: how the program was lifted, for replay */
  readonly launch?: LiftRecipe;
}

export interface TraceJsonMeta {
  readonly tool: 'arefcheck';
  readonly format: 'ITF';
  readonly 'format-description': string;
  readonly kind: string;
  readonly message: string;
  readonly program: string;
  readonly level: Level;
  readonly params: Readonly<Record<string, number>>;
  readonly literal: boolean;
  readonly actionIndices: readonly number[];
  readonly loopStart?: number;
  readonly loc?: Loc;
  /** lifted PTX: the lift options and the launch point (replay lifts the same program) */
  readonly launch?: LiftRecipe;
}

export type TraceJsonState = {
  readonly '#meta':
    | { readonly index: 0; readonly initialIndex: 0 }
    | { readonly index: number; readonly actionIndex: number; readonly actor: string; readonly action: string; readonly loc?: Loc };
  readonly changes: readonly string[];
} & Partial<Valuation>;

export interface TraceJson {
  readonly '#meta': TraceJsonMeta;
  /** `changes`, then the valuation's variables when the program was given */
  readonly vars: readonly string[];
  /** states[0] is the initial state; states[i] the state after step i. */
  readonly states: readonly TraceJsonState[];
  /** ITF's lasso mark: the last state equals states[loop]. */
  readonly loop?: number;
}

/** What replay needs from a counterexample file. */
export interface TraceFile {
  readonly kind: string;
  readonly level: Level;
  readonly params: Readonly<Record<string, number>>;
  readonly literal: boolean;
  readonly actionIndices: readonly number[];
  readonly loopStart?: number;
  readonly message?: string;
  /** The program file the trace was recorded on (for messages only). */
  readonly program?: string;
  /** lifted PTX: how its program was lifted */
  readonly launch?: LiftRecipe;
}

const isLevel = (x: string): x is Level => x === 'aref' || x === 'mbarrier';

/**
 * The level each violation of `report` was found at. For `--level both` the combined report keeps
 * its per-level reports in `levels` (violations in the same order); a prefix `[level]` is the fallback.
 */
export function violationLevels(report: Report): Level[] {
  const own = report.level;
  if (isLevel(own)) return report.violations.map(() => own);
  // `both`: the combined report lists each level's violations in the order of `levels`
  const out: Level[] = [];
  for (const r of report.levels ?? []) {
    const level = r.level;
    if (isLevel(level)) out.push(...r.violations.map(() => level));
  }
  if (out.length !== report.violations.length) throw new Error(`report at level '${own}': cannot tell the level of each violation`);
  return out;
}

export function violationToTraceJson(report: Report, violationIndex: number, programFile: string, context: TraceContext): TraceJson {
  const v = report.violations[violationIndex];
  if (!v) throw new Error(`the report has no violation #${violationIndex}`);
  const level = violationLevels(report)[violationIndex];
  if (!level) throw new Error(`no level for violation #${violationIndex}`);
  if (v.trace.length !== v.actionIndices.length) throw new Error('a trace entry without an action index');
  // all or nothing: a trace that does not fit the program (a caller's mistake) keeps its changes only
  const replayed = context.program ? traceValuations(context.program, level, context, v.actionIndices) : [];
  const valuations = replayed.length === v.trace.length + 1 ? replayed : [];
  const states: TraceJsonState[] = [{ '#meta': { index: 0, initialIndex: 0 }, changes: [], ...valuations[0] }];
  v.trace.forEach((t, i) => {
    const meta = { index: i + 1, actionIndex: v.actionIndices[i] ?? 0, actor: t.actor, action: t.action };
    states.push({ '#meta': t.loc ? { ...meta, loc: t.loc } : meta, changes: t.changes, ...valuations[i + 1] });
  });
  const meta: TraceJsonMeta = {
    tool: 'arefcheck',
    format: 'ITF',
    'format-description': ITF_FORMAT_DESCRIPTION,
    kind: v.kind,
    message: v.message,
    program: programFile,
    level,
    params: context.params,
    literal: context.literal,
    actionIndices: v.actionIndices,
    ...(v.loopStart !== undefined ? { loopStart: v.loopStart } : {}),
    ...(v.loc ? { loc: v.loc } : {}),
    ...(context.launch ? { launch: context.launch } : {}),
  };
  const vars = valuations.length > 0 ? ['changes', ...VALUATION_VARS] : ['changes'];
  return { '#meta': meta, vars, states, ...(v.loopStart !== undefined ? { loop: v.loopStart } : {}) };
}

// ---- reading --------------------------------------------------------------------------------

type ObjectNode = Extract<JsonNode, { type: 'object' }>;

function describe(node: JsonNode): string {
  return node.type === 'object' ? 'an object' : node.type === 'array' ? 'an array' : node.type === 'null' ? 'null' : `a ${node.type}`;
}

function expectObject(node: JsonNode, what: string): ObjectNode {
  if (node.type !== 'object') throw new InputError(`${what} must be an object, found ${describe(node)}`, node.loc);
  return node;
}

function entry(obj: ObjectNode, key: string): JsonEntry | undefined {
  return obj.entries.find((e) => e.key === key);
}

function nonNegativeInt(node: JsonNode, what: string): number {
  if (node.type !== 'number' || !Number.isSafeInteger(node.value) || node.value < 0 || !/^\d+$/.test(node.raw)) {
    throw new InputError(`${what} must be a non-negative integer, found ${node.type === 'number' ? node.raw : describe(node)}`, node.loc);
  }
  return node.value;
}

function stringField(obj: ObjectNode, key: string, what: string): string | undefined {
  const e = entry(obj, key);
  if (!e) return undefined;
  if (e.value.type !== 'string') throw new InputError(`${what}.${key} must be a string, found ${describe(e.value)}`, e.value.loc);
  return e.value.value;
}

/** Above this size a trace file is read with JSON.parse first (the position-keeping reader needs far more memory). */
const FAST_READ_BYTES = 1 << 20;

/** Read a counterexample file written by `violationToTraceJson` (or edited by hand). */
export function readTraceJson(text: string, file: string): TraceFile {
  if (text.length > FAST_READ_BYTES) {
    const fast = readPlain(text);
    if (fast) return fast;
  }
  return readTracked(text, file);
}

/**
 * A well-formed trace file through JSON.parse, or undefined for anything unexpected (the tracked
 * reader then says what and where).
 */
function readPlain(text: string): TraceFile | undefined {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    return undefined;
  }
  const obj = (x: unknown): Record<string, unknown> | undefined => (typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>) : undefined);
  const meta = obj(obj(root)?.['#meta']);
  if (!meta) return undefined;
  const { kind, level, message, program, literal, params, actionIndices, loopStart, launch } = meta;
  const recipe = launch === undefined ? undefined : readLiftRecipe(launch);
  if (typeof recipe === 'string') return undefined;
  const isIndex = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
  if (typeof kind !== 'string' || typeof level !== 'string' || !isLevel(level)) return undefined;
  if (meta['tool'] !== undefined && meta['tool'] !== 'arefcheck') return undefined;
  if (!Array.isArray(actionIndices) || !actionIndices.every(isIndex)) return undefined;
  const p = params === undefined ? {} : obj(params);
  if (!p || !Object.values(p).every((x) => typeof x === 'number' && Number.isSafeInteger(x))) return undefined;
  if (literal !== undefined && typeof literal !== 'boolean') return undefined;
  if (loopStart !== undefined && (!isIndex(loopStart) || loopStart > actionIndices.length)) return undefined;
  const states = obj(root)?.['states'];
  if (states !== undefined) {
    if (!Array.isArray(states) || states.length !== actionIndices.length + 1) return undefined;
    for (let i = 1; i < states.length; i++) {
      const idx = obj(obj(states[i])?.['#meta'])?.['actionIndex'];
      if (idx !== undefined && idx !== actionIndices[i - 1]) return undefined;
    }
  }
  return {
    kind,
    level,
    params: p as Record<string, number>,
    literal: literal === true,
    actionIndices,
    ...(loopStart !== undefined ? { loopStart } : {}),
    ...(typeof message === 'string' ? { message } : {}),
    ...(typeof program === 'string' ? { program } : {}),
    ...(recipe ? { launch: recipe } : {}),
  };
}

function readTracked(text: string, file: string): TraceFile {
  const root = expectObject(readJson(text, file), 'a trace file');
  const metaEntry = entry(root, '#meta');
  if (!metaEntry) throw new InputError('not an arefcheck trace: no "#meta" object (write one with `arefcheck verify --trace-out DIR`)', root.loc);
  const meta = expectObject(metaEntry.value, '"#meta"');

  const tool = stringField(meta, 'tool', '"#meta"');
  if (tool !== undefined && tool !== 'arefcheck') throw new InputError(`"#meta".tool is '${tool}': not a trace written by arefcheck`, entry(meta, 'tool')?.value.loc);
  const kind = stringField(meta, 'kind', '"#meta"');
  if (kind === undefined) throw new InputError('"#meta" has no "kind" (the violation the trace shows)', meta.loc);
  const levelText = stringField(meta, 'level', '"#meta"');
  if (levelText === undefined) throw new InputError('"#meta" has no "level" (aref or mbarrier)', meta.loc);
  if (!isLevel(levelText)) throw new InputError(`"#meta".level must be aref or mbarrier, found '${levelText}'`, entry(meta, 'level')?.value.loc);
  const message = stringField(meta, 'message', '"#meta"');
  const program = stringField(meta, 'program', '"#meta"');

  const params: Record<string, number> = {};
  const paramsEntry = entry(meta, 'params');
  if (paramsEntry) {
    for (const p of expectObject(paramsEntry.value, '"#meta".params').entries) {
      const n = p.value;
      if (n.type !== 'number' || !Number.isSafeInteger(n.value)) throw new InputError(`"#meta".params.${p.key} must be an integer`, n.loc);
      params[p.key] = n.value;
    }
  }
  const literalEntry = entry(meta, 'literal');
  if (literalEntry && literalEntry.value.type !== 'boolean') throw new InputError('"#meta".literal must be true or false', literalEntry.value.loc);
  const literal = literalEntry?.value.type === 'boolean' && literalEntry.value.value;

  const fromStates = stateIndices(root);
  let actionIndices: number[];
  const indicesEntry = entry(meta, 'actionIndices');
  if (indicesEntry) {
    const node = indicesEntry.value;
    if (node.type !== 'array') throw new InputError(`"#meta".actionIndices must be an array, found ${describe(node)}`, node.loc);
    actionIndices = node.items.map((item, i) => nonNegativeInt(item, `"#meta".actionIndices[${i}]`));
    if (fromStates) checkAgree(actionIndices, fromStates, node.loc);
  } else if (fromStates) {
    actionIndices = fromStates.indices;
  } else {
    throw new InputError('no action indices: "#meta".actionIndices is missing and "states" carry no "actionIndex"', meta.loc);
  }

  const loopEntry = entry(meta, 'loopStart') ?? entry(root, 'loop');
  const loopStart = loopEntry ? nonNegativeInt(loopEntry.value, loopEntry.key === 'loop' ? '"loop"' : '"#meta".loopStart') : undefined;
  if (loopStart !== undefined && loopStart > actionIndices.length) {
    throw new InputError(`the loop starts at state ${loopStart} but the trace has only ${actionIndices.length + 1} states`, loopEntry?.value.loc);
  }

  const launchEntry = entry(meta, 'launch');
  const launch = launchEntry ? readLiftRecipe(plainValue(launchEntry.value)) : undefined;
  if (typeof launch === 'string') throw new InputError(`"#meta".launch${launch}`, launchEntry?.value.loc);

  return {
    kind,
    level: levelText,
    params,
    literal,
    actionIndices,
    ...(loopStart !== undefined ? { loopStart } : {}),
    ...(message !== undefined ? { message } : {}),
    ...(program !== undefined ? { program } : {}),
    ...(launch ? { launch } : {}),
  };
}

/** A parsed value without its positions. */
function plainValue(node: JsonNode): unknown {
  if (node.type === 'object') return Object.fromEntries(node.entries.map((e) => [e.key, plainValue(e.value)]));
  if (node.type === 'array') return node.items.map(plainValue);
  return node.type === 'null' ? null : node.value;
}

/** The actionIndex of each state after the first, when the "states" array carries them. */
function stateIndices(root: ObjectNode): { indices: number[]; locs: Loc[] } | undefined {
  const e = entry(root, 'states');
  if (!e) return undefined;
  if (e.value.type !== 'array') throw new InputError(`"states" must be an array, found ${describe(e.value)}`, e.value.loc);
  const indices: number[] = [];
  const locs: Loc[] = [];
  for (const [i, item] of e.value.items.entries()) {
    if (i === 0) continue;
    const state = expectObject(item, `states[${i}]`);
    const m = entry(state, '#meta');
    const idx = m ? entry(expectObject(m.value, `states[${i}]["#meta"]`), 'actionIndex') : undefined;
    if (!idx) return undefined;
    indices.push(nonNegativeInt(idx.value, `states[${i}]["#meta"].actionIndex`));
    locs.push(idx.value.loc);
  }
  return { indices, locs };
}

function checkAgree(indices: readonly number[], fromStates: { indices: number[]; locs: Loc[] }, loc: Loc): void {
  if (fromStates.indices.length !== indices.length) {
    throw new InputError(`"#meta".actionIndices has ${indices.length} steps but "states" has ${fromStates.indices.length + 1} states (expected one more state than steps)`, loc);
  }
  for (let i = 0; i < indices.length; i++) {
    if (indices[i] !== fromStates.indices[i]) {
      throw new InputError(`states[${i + 1}]["#meta"].actionIndex is ${fromStates.indices[i]} but "#meta".actionIndices[${i}] is ${indices[i]}`, fromStates.locs[i]);
    }
  }
}
