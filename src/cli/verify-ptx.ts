// `arefcheck verify kernel.ptx`: lift the kernel at the launch values of a bounded sweep (the
// user's, defaults for the rest, and the depth-driving values raised — sweep.ts), check each
// lifted program, and report the worst verdict with what it covers and what the lifter assumed.
// With one launch value left open (`--param NAME=any`), that value is checked once where it is
// inert, else scanned (verify/ptx-every-value.ts): a bounded result, never a proof.
import { InputError } from '../diag.ts';
import { parseDims, type LiftOptions } from '../ptx/lift/lift.ts';
import { parsePtx } from '../ptx/parse/parser.ts';
import { readInputFile } from '../read-input.ts';
import { verifyPtxModule } from '../verify/ptx.ts';
import { liftRecipe } from '../ptx/lift/recipe.ts';
import { openLaunchValue, verifyEveryLaunchValue } from '../verify/ptx-every-value.ts';
import { DEFAULT_LIMITS } from '../verify.ts';
import { ttgirBoxes, tritonCacheBoxes } from '../ptx/lift/ttgir.ts';
import { flagBoolean, flagInt, flagString, flagStrings, type CommandLine } from './args.ts';
import { checkWithProgress, printReport, type VerificationRun } from './verification.ts';

export interface PtxFlags {
  readonly options: LiftOptions;
  readonly sweep: boolean;
  /** the maps --tma-box named (not those --ttgir or --triton-cache gave): each must be one a copy goes through */
  readonly namedBoxes: readonly string[];
}

/** `--param NAME=V` / `--param NAME+OFFSET:TYPE=V`, `--grid`, `--cluster`, `--tma-box MAP=BYTES`, `--no-sweep`. */
export function ptxFlags(cl: CommandLine, base: LiftOptions): PtxFlags {
  const params = new Map<string, string>();
  for (const text of flagStrings(cl, 'param')) {
    const eq = text.lastIndexOf('=');
    if (eq <= 0) throw new InputError(`--param expects NAME=V or NAME+OFFSET:TYPE=V, got '${text}'`);
    params.set(text.slice(0, eq).trim(), text.slice(eq + 1).trim());
  }
  const grid = flagString(cl, 'grid');
  const cluster = flagString(cl, 'cluster');
  const boxes = new Map<string, number>();
  for (const text of flagStrings(cl, 'tma-box')) {
    const m = /^(.+)=(\d+)(?:x(\d+))?(?:x(\d+))?$/.exec(text);
    if (!m) throw new InputError(`--tma-box expects MAP=BYTES or MAP=ROWSxCOLSxELEMBYTES, got '${text}'`);
    const bytes = [m[2], m[3], m[4]].filter((x) => x !== undefined).reduce((a, x) => a * Number(x), 1);
    if (!Number.isSafeInteger(bytes) || bytes < 1) throw new InputError(`--tma-box ${text}: the box must be 1 byte or more`);
    boxes.set(m[1] ?? '', bytes);
  }
  const named = [...boxes.keys()];
  // the compiler's own box sizes (Triton): --ttgir FILE or --triton-cache DIR; --tma-box wins over them
  const ttgir = flagString(cl, 'ttgir');
  const cache = flagString(cl, 'triton-cache');
  const fromCompiler = ttgir !== undefined ? ttgirBoxes(readInputFile(ttgir), ttgir) : cache !== undefined ? tritonCacheBoxes(cache) : undefined;
  for (const [k, v] of fromCompiler ?? []) if (!boxes.has(k) && !boxes.has(k.replace(/\+0$/, ''))) boxes.set(k, v);
  const maxSteps = flagInt(cl, 'max-steps', 1);
  return {
    sweep: !flagBoolean(cl, 'no-sweep'),
    namedBoxes: named,
    options: {
      ...base,
      ...(params.size > 0 ? { params } : {}),
      ...(grid !== undefined ? { grid: parseDims('grid', grid) } : {}),
      ...(cluster !== undefined ? { cluster: parseDims('cluster', cluster) } : {}),
      ...(boxes.size > 0 ? { tmaBoxes: boxes } : {}),
      ...(maxSteps !== undefined ? { maxSteps } : {}),
    },
  };
}

/** Lift, check every launch point, print the worst report; returns the exit code. */
export function verifyPtxFile(file: string, flags: PtxFlags, run: VerificationRun): number {
  const module = parsePtx(readInputFile(file), file);
  const open = openLaunchValue(module, flags.options);
  if (open) {
    const { report, program, value } = verifyEveryLaunchValue(module, file, open.rest, open.open, run.maxMs ?? DEFAULT_LIMITS.maxMs, (p, maxMs) => checkWithProgress(p, { ...run, maxMs }));
    // each value is lifted alone, unswept
    const params = new Map([...(open.rest.params ?? []), [open.open.name, value]]);
    return printReport(report, program, run, liftRecipe({ ...open.rest, params }, false, 'defaults'));
  }
  const { report, program, point } = verifyPtxModule(module, file, flags.options, flags.sweep, (p) => checkWithProgress(p, run), flags.namedBoxes);
  return printReport(report, program, run, liftRecipe(flags.options, flags.sweep, point));
}
