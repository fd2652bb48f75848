// Barriers a program only initialises: nobody waits on them, arrives on them or has a copy
// complete on them. Harmless alone, but an init of one twice is undefined, and a compiler that
// allocates such barriers may place them on memory it uses for data (Triton 3.6's Hopper warp
// specialization: docs/gpu.md). The report names them, with their init lines.
import { forEachOp, type Program } from '../ir/program.ts';

export interface DeadBarrier {
  readonly name: string;
  /** PTX (or .aref) lines of its inits, ascending */
  readonly lines: readonly number[];
}

export function deadBarriers(program: Program): DeadBarrier[] {
  const barriers = new Set(program.resources.filter((r) => r.kind === 'mbarrier').map((r) => r.name));
  const inits = new Map<string, number[]>();
  const used = new Set<string>();
  forEachOp(program, (op, _role, loc) => {
    for (const ref of ['target' in op ? op.target : undefined, 'barrier' in op ? op.barrier : undefined]) {
      if (!ref || !barriers.has(ref.name)) continue;
      if (op.kind === 'init') inits.set(ref.name, [...(inits.get(ref.name) ?? []), loc?.line ?? 0]);
      else used.add(ref.name);
    }
  });
  return [...inits].filter(([name]) => !used.has(name)).map(([name, lines]) => ({ name, lines: [...lines].sort((a, b) => a - b) }));
}

/** `line 305` or `lines 98, 107, …`: the first n distinct line numbers (the lanes of a warp may all init at one line). */
export function firstLines(lines: readonly number[], n: number): string {
  const distinct = [...new Set(lines)];
  const shown = distinct.length > n ? `${distinct.slice(0, n).join(', ')}, …` : distinct.join(', ');
  return `line${distinct.length === 1 ? '' : 's'} ${shown}`;
}

/** The report's note, or undefined when every barrier is used. */
export function deadBarrierNote(program: Program): string | undefined {
  const dead = deadBarriers(program);
  if (dead.length === 0) return undefined;
  const one = (d: DeadBarrier): string => {
    return `${d.name} (${d.lines.length} init${d.lines.length === 1 ? '' : 's'}, ${firstLines(d.lines, 6)})`;
  };
  return `barriers only ever initialised, never waited on, arrived on or completed by a copy: ${dead.map(one).join('; ')}`;
}
