// How a lifted program was made, written into a counterexample file so that `replay` lifts the
// same program: the lift options the check used (the user's launch values, grid, cluster, boxes
// and budgets) and, of the launch points that sweep gives, the one the trace ran on. The sweep is
// deterministic (budgets in instructions and events, never in time), so lifting again with the
// same options gives the same points.
import { InputError } from '../../diag.ts';
import type { Program } from '../../ir/program.ts';
import type { PtxModule } from '../parse/ast.ts';
import type { LiftOptions } from './lift.ts';
import { liftLaunchPoints } from './sweep.ts';

/** A lift in JSON: launch values as text (they may be 64-bit or floats). */
export interface LiftRecipe {
  readonly kernel?: string;
  readonly params?: Readonly<Record<string, string>>;
  readonly block?: number;
  readonly grid?: readonly [number, number, number];
  readonly cluster?: readonly [number, number, number];
  readonly cta?: number;
  readonly tmaBytes?: number;
  readonly tmaBoxes?: Readonly<Record<string, number>>;
  readonly maxSteps?: number;
  readonly maxEvents?: number;
  /** whether the lift swept launch values (false: the one point `defaults`) */
  readonly sweep: boolean;
  /** the point's label among the sweep's points */
  readonly point: string;
}

/** The recipe of `options` (the sweep's own `defaultInt` left out: lifting again derives it). */
export function liftRecipe(options: LiftOptions, sweep: boolean, point: string): LiftRecipe {
  const { params, tmaBoxes, defaultInt: _derived, ...asIs } = options;
  return {
    ...asIs,
    ...(params && params.size > 0 ? { params: Object.fromEntries([...params].map(([k, v]) => [k, String(v)])) } : {}),
    ...(tmaBoxes && tmaBoxes.size > 0 ? { tmaBoxes: Object.fromEntries(tmaBoxes) } : {}),
    sweep,
    point,
  };
}

export function recipeOptions(r: LiftRecipe): LiftOptions {
  const { params, tmaBoxes, sweep: _sweep, point: _point, ...asIs } = r;
  return {
    ...asIs,
    ...(params ? { params: new Map(Object.entries(params)) } : {}),
    ...(tmaBoxes ? { tmaBoxes: new Map(Object.entries(tmaBoxes)) } : {}),
  };
}

/** The program of the recipe's point, lifted again; an InputError when the sweep no longer gives it. */
export function liftRecipePoint(module: PtxModule, file: string, r: LiftRecipe): Program {
  const points = liftLaunchPoints(module, recipeOptions(r), r.sweep);
  const hit = points.find((p) => p.label === r.point);
  if (!hit) throw new InputError(`${file}: the trace was recorded at the launch point '${r.point}', which lifting ${file} again does not give (its points: ${points.map((p) => p.label).join('; ')})`);
  return hit.program;
}

/** A recipe read back from JSON, or what is wrong with it. */
export function readLiftRecipe(x: unknown): LiftRecipe | string {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return ' must be an object';
  const o = x as Record<string, unknown>;
  const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  const isDims = (v: unknown): v is [number, number, number] => Array.isArray(v) && v.length === 3 && v.every((d) => isCount(d) && d >= 1);
  const isRecord = (v: unknown, each: (e: unknown) => boolean): boolean =>
    typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every(each);
  if (typeof o['point'] !== 'string') return '.point must be the launch point\'s label';
  if (typeof o['sweep'] !== 'boolean') return '.sweep must be true or false';
  const checks: [string, (v: unknown) => boolean, string][] = [
    ['kernel', (v) => typeof v === 'string', 'a kernel name'],
    ['params', (v) => isRecord(v, (e) => typeof e === 'string'), 'an object of launch values as text'],
    ['block', isCount, 'a thread count'],
    ['grid', isDims, 'three dimensions'],
    ['cluster', isDims, 'three dimensions'],
    ['cta', isCount, 'a CTA index'],
    ['tmaBytes', isCount, 'a byte count'],
    ['tmaBoxes', (v) => isRecord(v, isCount), 'an object of byte counts'],
    ['maxSteps', isCount, 'an instruction count'],
    ['maxEvents', isCount, 'an event count'],
  ];
  for (const [key, ok, what] of checks) if (o[key] !== undefined && !ok(o[key])) return `.${key} must be ${what}`;
  // the fields checked, and nothing else the file holds
  const known = checks.map(([key]) => key).filter((key) => o[key] !== undefined);
  return Object.fromEntries([...known, 'sweep', 'point'].map((key) => [key, o[key]])) as unknown as LiftRecipe;
}
