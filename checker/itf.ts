// Traces as ITF-shaped JSON (Informal Trace Format, Apalache ADR-015, as Quint writes it):
// { "#meta", vars, states: [{ "#meta": { index, action, actionIndex }, …vars }], loop? }.
// Each state's "#meta" keeps the index that replays it, so a trace file can be re-run exactly.

import type { TraceStep } from './result.ts';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface ItfState {
  readonly '#meta': {
    readonly index: number;
    readonly initialIndex?: number;
    readonly action?: string;
    readonly actionIndex?: number;
  };
  readonly [variable: string]: JsonValue | ItfState['#meta'];
}

export interface ItfTrace {
  readonly '#meta': { readonly format: 'ITF'; readonly 'format-description': string; readonly [key: string]: JsonValue };
  readonly vars: string[];
  readonly states: ItfState[];
  /** Index of the state where the trace loops back (a lasso: the last state equals this one). */
  readonly loop?: number;
}

export interface ItfOptions<S, A> {
  /** The variables of one state, as JSON values; every state must give the same names. */
  readonly vars: (state: S) => Record<string, JsonValue>;
  readonly formatAction: (action: A) => string;
  readonly loopStart?: number;
  /** Extra "#meta" fields (kind, message, source, …). */
  readonly meta?: Record<string, JsonValue>;
}

const FORMAT_DESCRIPTION = 'https://apalache-mc.org/docs/adr/015adr-trace.html';

export function toItf<S, A>(trace: readonly TraceStep<S, A>[], options: ItfOptions<S, A>): ItfTrace {
  let vars: string[] | undefined;
  const states = trace.map((step, index): ItfState => {
    const record = options.vars(step.state);
    const names = Object.keys(record);
    if (names.includes('#meta')) throw new Error('itf: "#meta" cannot be a variable name');
    vars ??= names;
    if (names.length !== vars.length || names.some((name) => !vars!.includes(name))) {
      throw new Error(`itf: state ${index} has variables [${names.join(', ')}], expected [${vars.join(', ')}]`);
    }
    const meta =
      step.action !== undefined && step.actionIndex !== undefined
        ? { index, action: options.formatAction(step.action), actionIndex: step.actionIndex }
        : { index, initialIndex: step.initialIndex ?? 0 };
    return { '#meta': meta, ...record };
  });
  return {
    '#meta': { format: 'ITF', 'format-description': FORMAT_DESCRIPTION, ...options.meta },
    vars: vars ?? [],
    states,
    ...(options.loopStart !== undefined ? { loop: options.loopStart } : {}),
  };
}

/** An ITF document that does not carry replayable indices. */
export class ItfError extends Error {
  override readonly name = 'ItfError';
}

/** The indices that replay an ITF trace written by `toItf` (see `replayActionIndices`). */
export function readItfIndices(json: unknown): { initialIndex: number; actionIndices: number[]; loop?: number } {
  if (!isObject(json) || !Array.isArray(json['states'])) throw new ItfError('itf: expected an object with a "states" array');
  const states: unknown[] = json['states'];
  if (states.length === 0) throw new ItfError('itf: "states" is empty');
  const metaOf = (i: number): Record<string, unknown> => {
    const state = states[i];
    const meta = isObject(state) ? state['#meta'] : undefined;
    if (!isObject(meta)) throw new ItfError(`itf: states[${i}] has no "#meta" object`);
    return meta;
  };
  const indexAt = (i: number, key: string, fallback?: number): number => {
    const value = metaOf(i)[key] ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      throw new ItfError(`itf: states[${i}]["#meta"].${key} must be a non-negative integer`);
    }
    return value;
  };
  const initialIndex = indexAt(0, 'initialIndex', 0);
  const actionIndices: number[] = [];
  for (let i = 1; i < states.length; i++) actionIndices.push(indexAt(i, 'actionIndex'));
  const loop = json['loop'];
  if (loop === undefined) return { initialIndex, actionIndices };
  if (typeof loop !== 'number' || !Number.isInteger(loop) || loop < 0 || loop >= states.length) {
    throw new ItfError('itf: "loop" must be the index of a state');
  }
  return { initialIndex, actionIndices, loop };
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
