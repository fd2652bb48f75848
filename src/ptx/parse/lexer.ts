// PTX tokens. Grammar only: no meaning is attached here (the lifter gives it).
// Opcodes and special registers are single tokens: `mbarrier.try_wait.parity.shared::cta.b64`,
// `%tid.x`. Directives keep their `::` parts: `.shared::cta`.
import { InputError } from '../../diag.ts';

export const TOKEN_KINDS = ['ident', 'dir', 'int', 'float', 'str', 'punct', 'eof'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly line: number;
  readonly col: number;
}

const PUNCT = new Set([',', ';', ':', '[', ']', '{', '}', '(', ')', '+', '-', '@', '!', '|', '<', '>', '=', '*', '/', '~', '&', '^', '%']);

function isIdentStart(c: number): boolean {
  // A-Z a-z _ $ %
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36 || c === 37;
}
function isIdentPart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 36;
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isHex(c: number): boolean {
  return isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

export interface Comment {
  readonly line: number;
  /** The comment's text without its delimiters, trimmed. */
  readonly text: string;
}

/** Split PTX text into tokens, positions 1-based; comments go to `comments` when given. */
export function tokenize(text: string, file: string, comments?: Comment[]): Token[] {
  const out: Token[] = [];
  const n = text.length;
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const fail = (msg: string, at: number): never => {
    throw new InputError(msg, { file, line, col: at - lineStart + 1 });
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (c === 32 || c === 9 || c === 13 || c === 12 || c === 11) {
      i++;
      continue;
    }
    const start = i;
    const col = i - lineStart + 1;
    if (c === 47 && text.charCodeAt(i + 1) === 47) {
      // line comment
      while (i < n && text.charCodeAt(i) !== 10) i++;
      comments?.push({ line, text: text.slice(start + 2, i).trim() });
      continue;
    }
    if (c === 47 && text.charCodeAt(i + 1) === 42) {
      // block comment: keep line counting right
      const end = text.indexOf('*/', i + 2);
      if (end < 0) fail('unterminated /* comment', start);
      comments?.push({ line, text: text.slice(i + 2, end).trim() });
      for (let j = i; j < end; j++) {
        if (text.charCodeAt(j) === 10) {
          line++;
          lineStart = j + 1;
        }
      }
      i = end + 2;
      continue;
    }
    if (isIdentStart(c) && !(c === 37 && !isIdentStartAfterPercent(text.charCodeAt(i + 1)))) {
      i++;
      while (i < n && isIdentPart(text.charCodeAt(i))) i++;
      // `.suffix` and `::suffix` continue an opcode or special register
      for (;;) {
        const d = text.charCodeAt(i);
        if (d === 46 && isIdentPart(text.charCodeAt(i + 1))) {
          i += 2;
          while (i < n && isIdentPart(text.charCodeAt(i))) i++;
        } else if (d === 58 && text.charCodeAt(i + 1) === 58 && isIdentPart(text.charCodeAt(i + 2))) {
          i += 3;
          while (i < n && isIdentPart(text.charCodeAt(i))) i++;
        } else break;
      }
      out.push({ kind: 'ident', text: text.slice(start, i), line, col });
      continue;
    }
    if (c === 46 && isIdentPart(text.charCodeAt(i + 1)) && !isDigit(text.charCodeAt(i + 1))) {
      i += 2;
      while (i < n && isIdentPart(text.charCodeAt(i))) i++;
      while (text.charCodeAt(i) === 58 && text.charCodeAt(i + 1) === 58 && isIdentPart(text.charCodeAt(i + 2))) {
        i += 3;
        while (i < n && isIdentPart(text.charCodeAt(i))) i++;
      }
      out.push({ kind: 'dir', text: text.slice(start, i), line, col });
      continue;
    }
    if (isDigit(c)) {
      i = scanNumber(text, i);
      const t = text.slice(start, i);
      const isFloat = /^0[fFdD][0-9a-fA-F]+$/.test(t) || /[.eE]/.test(t.replace(/^0[xX].*/, ''));
      out.push({ kind: isFloat ? 'float' : 'int', text: t, line, col });
      continue;
    }
    if (c === 34) {
      i++;
      while (i < n && text.charCodeAt(i) !== 34 && text.charCodeAt(i) !== 10) {
        if (text.charCodeAt(i) === 92) i++;
        i++;
      }
      if (text.charCodeAt(i) !== 34) fail('unterminated string', start);
      i++;
      out.push({ kind: 'str', text: text.slice(start, i), line, col });
      continue;
    }
    const ch = text[i] ?? '';
    if (PUNCT.has(ch)) {
      i++;
      out.push({ kind: 'punct', text: ch, line, col });
      continue;
    }
    fail(`unexpected character '${printable(ch)}'`, start);
  }
  out.push({ kind: 'eof', text: '', line, col: i - lineStart + 1 });
  return out;
}

function isIdentStartAfterPercent(c: number): boolean {
  return isIdentPart(c);
}

function scanNumber(text: string, i: number): number {
  const n = text.length;
  const c1 = text.charCodeAt(i + 1);
  if (text.charCodeAt(i) === 48 && (c1 === 120 || c1 === 88 || c1 === 102 || c1 === 70 || c1 === 100 || c1 === 68)) {
    // 0x…, 0f…, 0d…
    i += 2;
    while (i < n && isHex(text.charCodeAt(i))) i++;
  } else if (text.charCodeAt(i) === 48 && (c1 === 98 || c1 === 66) && (text.charCodeAt(i + 2) === 48 || text.charCodeAt(i + 2) === 49)) {
    i += 2;
    while (i < n && (text.charCodeAt(i) === 48 || text.charCodeAt(i) === 49)) i++;
  } else {
    while (i < n && isDigit(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) === 46 && isDigit(text.charCodeAt(i + 1))) {
      i++;
      while (i < n && isDigit(text.charCodeAt(i))) i++;
    }
    const e = text.charCodeAt(i);
    if ((e === 101 || e === 69) && (isDigit(text.charCodeAt(i + 1)) || ((text.charCodeAt(i + 1) === 43 || text.charCodeAt(i + 1) === 45) && isDigit(text.charCodeAt(i + 2))))) {
      i += 2;
      while (i < n && isDigit(text.charCodeAt(i))) i++;
    }
  }
  if (text.charCodeAt(i) === 85) i++; // U suffix
  return i;
}

function printable(ch: string): string {
  const code = ch.charCodeAt(0);
  return code < 32 || code > 126 ? `\\u${code.toString(16).padStart(4, '0')}` : ch;
}

/** Parse an integer literal token (decimal, hex, octal, binary, optional U suffix). */
export function parseIntLiteral(text: string): bigint | undefined {
  const t = text.endsWith('U') ? text.slice(0, -1) : text;
  if (/^0[xX][0-9a-fA-F]+$/.test(t) || /^0[bB][01]+$/.test(t)) return BigInt(t);
  if (/^0[0-7]+$/.test(t)) return BigInt('0o' + t.slice(1));
  if (/^[0-9]+$/.test(t)) return BigInt(t);
  return undefined;
}

/** The raw bits of a hex float literal (`0f3F800000`, `0d…`); undefined for decimal floats. */
export function floatLiteralBits(text: string): bigint | undefined {
  if (/^0[fFdD][0-9a-fA-F]+$/.test(text)) return BigInt('0x' + text.slice(2));
  return undefined;
}
