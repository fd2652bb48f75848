// A JSON parser that keeps the position of every value, so schema errors can say file:line:col.
import { InputError } from '../diag.ts';
import type { Loc } from '../ir/program.ts';

export type JsonNode =
  | { readonly type: 'object'; readonly entries: readonly JsonEntry[]; readonly loc: Loc }
  | { readonly type: 'array'; readonly items: readonly JsonNode[]; readonly loc: Loc }
  | { readonly type: 'string'; readonly value: string; readonly loc: Loc }
  /** `raw` is the literal text, so a schema can tell 1 from 1.0 or 1e400. */
  | { readonly type: 'number'; readonly value: number; readonly raw: string; readonly loc: Loc }
  | { readonly type: 'boolean'; readonly value: boolean; readonly loc: Loc }
  | { readonly type: 'null'; readonly loc: Loc };

export interface JsonEntry {
  readonly key: string;
  readonly keyLoc: Loc;
  readonly value: JsonNode;
}

const NUMBER_RE = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

export function readJson(text: string, file: string): JsonNode {
  const bom = text.startsWith('\uFEFF') ? 1 : 0; // a byte-order mark is not a column
  let pos = bom;
  let line = 1;
  let lineStart = bom;
  const here = (): Loc => ({ file, line, col: pos - lineStart + 1 });
  const fail = (message: string, loc: Loc = here()): never => {
    throw new InputError(message, loc);
  };
  const found = (): string => (pos >= text.length ? 'end of file' : JSON.stringify(text[pos]));

  const skipSpace = (): void => {
    while (pos < text.length) {
      const c = text[pos];
      if (c === '\n') {
        pos++;
        line++;
        lineStart = pos;
      } else if (c === ' ' || c === '\t' || c === '\r') pos++;
      else break;
    }
  };

  const readString = (): string => {
    const start = here();
    pos++; // opening quote
    let out = '';
    for (;;) {
      if (pos >= text.length || text[pos] === '\n') return fail('unterminated string: expected a closing \'"\'', start);
      const c = text[pos] as string;
      if (c === '"') {
        pos++;
        return out;
      }
      if (c === '\\') {
        const esc = text[pos + 1];
        const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (esc !== undefined && Object.hasOwn(simple, esc)) {
          out += simple[esc];
          pos += 2;
        } else if (esc === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) {
          out += String.fromCharCode(parseInt(text.slice(pos + 2, pos + 6), 16));
          pos += 6;
        } else {
          return fail('invalid escape in string: expected one of \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX');
        }
        continue;
      }
      if (c < ' ') return fail('control character in string: escape it');
      out += c;
      pos++;
    }
  };

  const readValue = (): JsonNode => {
    skipSpace();
    const loc = here();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const entries: JsonEntry[] = [];
      const seen = new Set<string>();
      skipSpace();
      if (text[pos] === '}') {
        pos++;
        return { type: 'object', entries, loc };
      }
      for (;;) {
        skipSpace();
        if (text[pos] !== '"') fail(`expected a field name in double quotes, found ${found()}`);
        const keyLoc = here();
        const key = readString();
        if (seen.has(key)) fail(`duplicate field "${key}"`, keyLoc);
        seen.add(key);
        skipSpace();
        if (text[pos] !== ':') fail(`expected ':' after the field name "${key}", found ${found()}`);
        pos++;
        entries.push({ key, keyLoc, value: readValue() });
        skipSpace();
        if (text[pos] === ',') {
          pos++;
          skipSpace();
          if (text[pos] === '}') fail("trailing comma: expected another field after ',' (JSON allows no comma before '}')");
          continue;
        }
        if (text[pos] === '}') {
          pos++;
          return { type: 'object', entries, loc };
        }
        fail(`expected ',' or '}' in object, found ${found()}`);
      }
    }
    if (c === '[') {
      pos++;
      const items: JsonNode[] = [];
      skipSpace();
      if (text[pos] === ']') {
        pos++;
        return { type: 'array', items, loc };
      }
      for (;;) {
        items.push(readValue());
        skipSpace();
        if (text[pos] === ',') {
          pos++;
          skipSpace();
          if (text[pos] === ']') fail("trailing comma: expected another value after ',' (JSON allows no comma before ']')");
          continue;
        }
        if (text[pos] === ']') {
          pos++;
          return { type: 'array', items, loc };
        }
        fail(`expected ',' or ']' in array, found ${found()}`);
      }
    }
    if (c === '"') return { type: 'string', value: readString(), loc };
    for (const [word, node] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return node === null ? { type: 'null', loc } : { type: 'boolean', value: node, loc };
      }
    }
    NUMBER_RE.lastIndex = pos;
    const m = NUMBER_RE.exec(text);
    if (m) {
      pos += m[0].length;
      return { type: 'number', value: Number(m[0]), raw: m[0], loc };
    }
    return fail(`expected a JSON value (object, array, string, number, true, false or null), found ${found()}`);
  };

  const root = readValue();
  skipSpace();
  if (pos < text.length) fail(`expected end of file after the JSON value, found ${found()}`);
  return root;
}
