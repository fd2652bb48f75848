// The .aref lexer: tokens with positions, plus Python-style NEWLINE / INDENT / DEDENT.
import { InputError } from '../diag.ts';
import type { Loc } from '../ir/program.ts';
import { MAX_INT } from './syntax.ts';

export type TokenKind = 'name' | 'int' | 'punct' | 'newline' | 'indent' | 'dedent' | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /** Source text (names, punctuation, number literals); '' for layout tokens. */
  readonly text: string;
  /** Value of an `int` token. */
  readonly value: number;
  readonly loc: Loc;
}

// Longest first, so `<<` wins over `<` and `->` over `-`.
const PUNCT = ['->', '..', '<<', '>>', '<=', '>=', '==', '!=', '&&', '||',
  '[', ']', '(', ')', ',', ':', '=', '+', '-', '*', '/', '%', '&', '|', '^', '<', '>', '!'] as const;

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isIdentStart = (c: string | undefined): boolean => c !== undefined && /[A-Za-z_]/.test(c);
const isIdentPart = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_]/.test(c);

/** A printable description of a token for "expected X, found Y" messages. */
export function describeToken(t: Token): string {
  switch (t.kind) {
    case 'newline': return 'end of line';
    case 'eof': return 'end of file';
    case 'indent': return 'an indented line';
    case 'dedent': return 'the end of the block';
    default: return `'${t.text}'`;
  }
}

export function lex(text: string, file: string): Token[] {
  const tokens: Token[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/); // a byte-order mark is not a column
  const indents = [0];
  const at = (line: number, col: number): Loc => ({ file, line, col });
  const make = (kind: TokenKind, txt: string, loc: Loc, value = 0): Token => ({ kind, text: txt, value, loc });

  lines.forEach((src, i) => {
    const line = i + 1;
    let col = 0; // 0-based index into src
    while (src[col] === ' ') col++;
    if (src[col] === '\t') throw new InputError('tab in indentation; indent with spaces', at(line, col + 1));
    const indent = col;
    const lineTokens: Token[] = [];
    let endCol = col; // 0-based end of the last token, for the NEWLINE position
    while (col < src.length) {
      const c = src[col];
      if (c === ' ' || c === '\t' || c === '\r') {
        col++;
        continue;
      }
      if (c === '#') break;
      const start = col;
      if (isDigit(c)) {
        if (c === '0' && (src[col + 1] === 'x' || src[col + 1] === 'X')) {
          col += 2;
          while (col < src.length && /[0-9a-fA-F]/.test(src[col] ?? '')) col++;
          if (col === start + 2) throw new InputError(`malformed hexadecimal number '${src.slice(start, col)}': expected hex digits after 0x`, at(line, start + 1));
        } else {
          while (isDigit(src[col])) col++;
        }
        if (isIdentPart(src[col])) {
          while (isIdentPart(src[col])) col++;
          throw new InputError(`malformed number '${src.slice(start, col)}'`, at(line, start + 1));
        }
        const literal = src.slice(start, col);
        const big = BigInt(literal);
        if (big > BigInt(MAX_INT)) {
          throw new InputError(`number ${literal} is too large: numbers must be at most ${MAX_INT} (2^31 - 1)`, at(line, start + 1));
        }
        lineTokens.push(make('int', literal, at(line, start + 1), Number(big)));
      } else if (isIdentStart(c)) {
        col++;
        for (;;) {
          while (isIdentPart(src[col])) col++;
          // Dotted op names (arrive.expect_tx, fence.proxy.async); `k..K` stays three tokens.
          if (src[col] === '.' && isIdentStart(src[col + 1])) col++;
          else break;
        }
        lineTokens.push(make('name', src.slice(start, col), at(line, start + 1)));
      } else {
        const p = PUNCT.find((q) => src.startsWith(q, col));
        if (p === undefined) {
          const shown = c === undefined ? '' : JSON.stringify(c);
          throw new InputError(`unexpected character ${shown}`, at(line, start + 1));
        }
        col += p.length;
        lineTokens.push(make('punct', p, at(line, start + 1)));
      }
      endCol = col;
    }
    if (lineTokens.length === 0) return; // blank or comment-only line: no layout effect
    const first = lineTokens[0] as Token;
    const top = indents[indents.length - 1] ?? 0;
    if (indent > top) {
      indents.push(indent);
      tokens.push(make('indent', '', first.loc));
    } else if (indent < top) {
      const levels = indents.map((n) => n + 1).join(' or ');
      while (indent < (indents[indents.length - 1] ?? 0)) {
        indents.pop();
        tokens.push(make('dedent', '', first.loc));
      }
      if (indent !== indents[indents.length - 1]) {
        throw new InputError(`indentation does not match any enclosing block: expected column ${levels}`, first.loc);
      }
    }
    tokens.push(...lineTokens);
    tokens.push(make('newline', '', at(line, endCol + 1)));
  });

  const last = lines.length;
  const lastLine = lines[last - 1] ?? '';
  const eofLoc = at(last, lastLine.length + 1);
  for (let n = indents.length; n > 1; n--) tokens.push(make('dedent', '', eofLoc));
  tokens.push(make('eof', '', eofLoc));
  return tokens;
}
