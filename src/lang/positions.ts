// Source positions of IR nodes that have no `loc` field (refs, expressions, numeric fields).
// The IR stays plain data; the parsers record positions here so that validation can point at
// the exact token (an index, a parity, a size) instead of only at the enclosing statement.
import type { Loc } from '../ir/program.ts';

const nodeLocs = new WeakMap<object, Loc>();
const fieldLocs = new WeakMap<object, Map<string, Loc>>();

/** Remember where `node` (an Expr, a Ref, an Op, …) starts in its source. */
export function recordLoc(node: object, loc: Loc): void {
  nodeLocs.set(node, loc);
}

/** Remember where the value of `node[field]` is written (e.g. a resource's `depth`). */
export function recordFieldLoc(node: object, field: string, loc: Loc): void {
  let fields = fieldLocs.get(node);
  if (!fields) {
    fields = new Map();
    fieldLocs.set(node, fields);
  }
  fields.set(field, loc);
}

export function locOf(node: object): Loc | undefined {
  const recorded = nodeLocs.get(node);
  if (recorded) return recorded;
  if ('loc' in node) return node.loc as Loc | undefined;
  return undefined;
}

export function fieldLocOf(node: object, field: string): Loc | undefined {
  return fieldLocs.get(node)?.get(field);
}
