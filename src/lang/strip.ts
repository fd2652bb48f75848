// A copy of a Program without source positions: for comparing programs by meaning.
import type { Program } from '../ir/program.ts';

export function stripLocs(p: Program): Program {
  return JSON.parse(JSON.stringify(p, (key, value: unknown) => (key === 'loc' || key === 'source' ? undefined : value))) as Program;
}
