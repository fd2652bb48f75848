// A cursor over the lexer's tokens with the "expected X, found Y" error helper.
import { InputError } from '../diag.ts';
import { describeToken, type Token } from './lexer.ts';

export class TokenStream {
  private pos = 0;
  private readonly tokens: readonly Token[];
  constructor(tokens: readonly Token[]) {
    this.tokens = tokens;
  }

  peek(ahead = 0): Token {
    const t = this.tokens[Math.min(this.pos + ahead, this.tokens.length - 1)];
    if (!t) throw new Error('token stream is empty'); // the lexer always ends with eof
    return t;
  }

  next(): Token {
    const t = this.peek();
    if (this.pos < this.tokens.length - 1) this.pos++;
    return t;
  }

  /** Is the current token the punctuation or word `text`? */
  isText(text: string): boolean {
    const t = this.peek();
    return (t.kind === 'punct' || t.kind === 'name') && t.text === text;
  }

  /** Consume `text` if it is next. */
  accept(text: string): boolean {
    if (!this.isText(text)) return false;
    this.pos++;
    return true;
  }

  /** Consume `text` or fail with "expected <what>, found …". */
  expect(text: string, what: string = `'${text}'`): Token {
    if (!this.isText(text)) throw this.error(what);
    return this.next();
  }

  expectKind(kind: Token['kind'], what: string): Token {
    if (this.peek().kind !== kind) throw this.error(what);
    return this.next();
  }

  /** An error at the current token: `expected <what>, found <token>`. */
  error(what: string, token: Token = this.peek()): InputError {
    return new InputError(`expected ${what}, found ${describeToken(token)}`, token.loc);
  }
}
