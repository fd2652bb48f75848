// Annotations a generator leaves in PTX comments, read when present (arefcheck's own emitter
// writes them, docs/emit.md): the names of buffers laid out in dynamic shared memory and the
// line ranges of each role. Without them the lifter names things by address and warp.
import type { PtxModule } from '../parse/ast.ts';

export interface BufferHint {
  readonly name: string;
  readonly slots: number;
  readonly bytes: number;
  /** Offset from the start of dynamic shared memory. */
  readonly offset: number;
}

export interface RoleHint {
  readonly name: string;
  readonly from: number;
  readonly to: number;
}

export interface Hints {
  readonly buffers: readonly BufferHint[];
  readonly roles: readonly RoleHint[];
}

const BUFFER = /^arefcheck-buffer\s+([A-Za-z_][A-Za-z0-9_]*)\s+slots\s+(\d+)\s+bytes\s+(\d+)\s+offset\s+(\d+)\s*$/;
const ROLE = /^arefcheck role\s+([A-Za-z_][A-Za-z0-9_]*)\s+(begin|end)\b/;

export function readHints(module: PtxModule): Hints {
  const buffers: BufferHint[] = [];
  const roles: RoleHint[] = [];
  const open = new Map<string, number>();
  for (const c of module.comments ?? []) {
    const b = BUFFER.exec(c.text);
    if (b) {
      const [, name = '', slots = '0', bytes = '0', offset = '0'] = b;
      if (Number(slots) > 0 && Number(bytes) > 0) buffers.push({ name, slots: Number(slots), bytes: Number(bytes), offset: Number(offset) });
      continue;
    }
    const r = ROLE.exec(c.text);
    if (!r) continue;
    const [, name = '', which] = r;
    if (which === 'begin') open.set(name, c.line);
    else {
      const from = open.get(name);
      if (from !== undefined) roles.push({ name, from, to: c.line });
      open.delete(name);
    }
  }
  return { buffers, roles };
}

/** The hinted role whose line range holds the role's first operation (epilogues may follow the range). */
export function hintedRole(hints: Hints, lines: readonly number[]): string | undefined {
  const first = lines[0];
  if (first === undefined) return undefined;
  return hints.roles.find((r) => first > r.from && first < r.to)?.name;
}
