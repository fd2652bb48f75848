// Buffers no operation of a program reads. Two copies landing in such a buffer at once (CUTLASS's
// weight prefetch pulls tiles into L2 through one scratch stage) race by the memory model, but the
// lost write cannot reach any value the kernel uses: the report says so next to the race.
import { forEachOp, type Program } from '../ir/program.ts';

/** Names of buffer and aref resources that no read, get, wgmma or TMA store names. */
export function unreadBuffers(program: Program): Set<string> {
  const read = new Set<string>();
  forEachOp(program, (op) => {
    if (op.kind === 'read' || op.kind === 'atomic' || op.kind === 'get' || op.kind === 'wgmma.issue' || op.kind === 'tma.store') read.add(op.target.name);
  });
  return new Set(program.resources.filter((r) => (r.kind === 'buffer' || r.kind === 'aref') && !read.has(r.name)).map((r) => r.name));
}

/** A race or lost-data message, with a word on the buffer when nothing in the program reads it. */
export function explainUnread(message: string, unread: ReadonlySet<string>): string {
  const name = (/\brace on ([\w.$]+)\[/.exec(message) ?? /^at the end ([\w.$]+)\[\d+\] holds data/.exec(message))?.[1];
  if (name === undefined || !unread.has(name)) return message;
  return `${message} (nothing in the program reads ${name}: a write-only scratch buffer, so what lands there cannot reach a value the kernel uses)`;
}
