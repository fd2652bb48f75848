// `arefcheck verify`: explore every interleaving of a program and print the verdict, the figures
// and the shortest counterexamples (text or one JSON object); optionally write each
// counterexample as a replayable ITF-shaped JSON file.
import { extname } from 'node:path';
import { InputError } from '../diag.ts';
import { anyParam, parseCommandLine, type CommandSpec } from './args.ts';
import { EXIT } from '../exit-codes.ts';
import { ptxFlags, verifyPtxFile } from './verify-ptx.ts';
import { runVerification, verificationFlags } from './verification.ts';
import { loadFlags, loadProgramForCli } from './load-program.ts';

export const VERIFY_HELP = `Usage: arefcheck verify FILE [options]

Explores every interleaving of the roles and of the asynchronous units (TMA landings, wgmma
retirements) of FILE (.aref, .json, or .ptx) and decides deadlock, race, fifo, protocol,
termination (under weak fairness) and, for an aref program checked at the mbarrier level,
refinement. Prints the verdict, the figures, and for each violation the shortest trace.

Options:
  --level aref|mbarrier|both  the level to check (default: the program's own); an aref program
                         is lowered for mbarrier; both checks it at each level
  --param NAME=V         override a param of FILE (repeatable)
  --param NAME=any       prove FILE for every value of NAME >= 1 (NAME=any>=N: >= N); a
                         violation is shown at the smallest value that has it. Where the proof
                         method does not apply, values 1..32 are checked one by one and the
                         result is reported as bounded (exit 3), never as a proof. On a .ptx
                         kernel (NAME a launch value: K, 0+8, …) it is a proof only when NAME
                         is inert (it decides nothing the lifter records); otherwise a bounded
                         scan: values min..min+7, then a ladder to 4096 (docs/ptx.md)
  --literal              follow the paper's consumed rule as written (no protocol error on a
                         slot that is not borrowed)
  --max-states N         stop (inconclusive) after storing N states (default 20,000,000)
  --timeout S            stop (inconclusive) after S seconds (default 600)
  --max-memory SIZE      stop (inconclusive) when the explorer's tables would pass SIZE
                         (bytes, or with K, M, G: 512M, 4G; default 6G)
  --no-por               explore every interleaving (no partial-order reduction); the
                         counterexamples are then the shortest of the full graph
  --no-collapse          store every state whole: no collapse compression, which keeps the
                         barriers, the happens-before knowledge and the work in flight once
                         per distinct value (it saves memory per state for a little time;
                         the same states, verdicts and counterexamples either way)
  --no-symmetry          store every order of interchangeable roles (same code, e.g.
                         cooperative consumers); by default one order per state is
                         stored, and counterexamples are still runs of the program
  --no-every-k           explore a param's value itself: by default a param of 1,024 or more
                         is first tried as a proof for every value of it (the method of
                         NAME=any), and the value is explored only when that is no proof
  --json                 print one JSON object: verdict, level, violations (kind, message,
                         trace, actionIndices), stats
  --trace-out DIR        write each counterexample to DIR as JSON, for 'arefcheck replay'
  --sarif FILE           also write the report as SARIF 2.1.0 (for code-scanning CI)
  --sarif-root DIR       SARIF file URIs relative to DIR (the repository root), as GitHub
                         code scanning wants them
  --kernel NAME          .ptx only: the kernel entry to lift (default: the only one); NAME
                         may be an identifier inside a mangled C++ name
                         (KernelTmaWarpSpecializedPingpong) or any part of one name
  --block N              .ptx only: threads per block
  --cta N                .ptx only: the CTA to execute (%ctaid.x, default 0; a grid not given
                         holds it). Left open, the sweep raises it with the open lengths
                         when nothing else wraps a ring (a causal kernel's CTA 0 makes one block)
  --tma-bytes N          .ptx only: bytes of each tensor TMA copy, when the layout cannot tell
  --tma-box MAP=BYTES    .ptx only: bytes of one tensor map's box (MAP as the notes print it;
                         BYTES may be ROWSxCOLSxELEMBYTES)
  --param NAME+OFF:T=V   .ptx only: a field of a by-value parameter (CUTLASS Params), e.g.
                         --param 0+12:u32=4096; NAME may be the parameter's index
  --param NAME[B]:T=V    .ptx only: an integer of the array a pointer parameter points to, at
                         byte B (NAME+OFF[B]:T=V: through the pointer field at OFF;
                         [*]: every element); a value the kernel never reads is noted
  --grid X,Y,Z           .ptx only: the grid (%nctaid; default one cluster)
  --cluster X,Y,Z        .ptx only: the cluster shape (default .reqnctapercluster, else 1;
                         a kernel that addresses another CTA: the ClusterShape in its
                         name, read with c++filt, else a guessed shape)
  --no-sweep             .ptx only: check the given launch values (defaults for the rest)
                         only, not the bounded sweep of the values left open
  --max-steps N          .ptx only: PTX instructions the concrete run may execute
  --ttgir FILE           .ptx only: TMA box sizes from Triton's TTGIR of the kernel (the block
                         shapes of its tensor descriptors); --tma-box overrides
  --triton-cache DIR     .ptx only: the same from every .ttgir under a Triton cache folder
  -h, --help             show this help

Exit codes: 0 verified, 1 violation, 2 bad input, 3 inconclusive (a limit was reached).
A progress line goes to stderr for runs over a second. On a terminal, Ctrl-C stops the check
and prints the figures reached (inconclusive, exit 3); a second Ctrl-C quits at once.
`;

const SPEC: CommandSpec = {
  name: 'verify',
  help: VERIFY_HELP,
  options: {
    level: { type: 'string' },
    param: { type: 'string', multiple: true },
    literal: { type: 'boolean' },
    'max-states': { type: 'string' },
    timeout: { type: 'string' },
    'max-memory': { type: 'string' },
    'no-por': { type: 'boolean' },
    'no-collapse': { type: 'boolean' },
    'no-symmetry': { type: 'boolean' },
    'no-every-k': { type: 'boolean' },
    json: { type: 'boolean' },
    'trace-out': { type: 'string' },
    sarif: { type: 'string' },
    'sarif-root': { type: 'string' },
    kernel: { type: 'string' },
    block: { type: 'string' },
    cta: { type: 'string' },
    'tma-bytes': { type: 'string' },
    'tma-box': { type: 'string', multiple: true },
    grid: { type: 'string' },
    cluster: { type: 'string' },
    'no-sweep': { type: 'boolean' },
    'max-steps': { type: 'string' },
    ttgir: { type: 'string' },
    'triton-cache': { type: 'string' },
  },
  positionals: { min: 1, max: 1, what: 'FILE' },
};

export async function main(argv: string[]): Promise<number> {
  const cl = parseCommandLine(SPEC, argv);
  if (!cl) return EXIT.verified;
  const file = cl.positionals[0] ?? '';
  const run = verificationFlags(cl);
  const any = anyParam(cl);
  if (extname(file).toLowerCase() === '.ptx') {
    // NAME=any on a kernel: one check if the value is inert, else a bounded scan (verify/ptx-every-value.ts)
    const { params: _ints, ...base } = loadFlags(cl, false);
    return verifyPtxFile(file, ptxFlags(cl, base), { ...run, name: file });
  }
  for (const flag of ['tma-box', 'grid', 'cluster', 'no-sweep', 'max-steps', 'ttgir', 'triton-cache']) {
    if (cl.values[flag] !== undefined) throw new InputError(`--${flag} applies to .ptx files only`);
  }
  const program = await loadProgramForCli(file, loadFlags(cl, true, true));
  return runVerification(program, { ...run, name: file, ...(any ? { anyParam: any } : {}) });
}
