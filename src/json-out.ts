// JSON written piece by piece: a counterexample of a million steps is hundreds of megabytes of
// JSON, past what one string may hold, so reports and trace files never go through one string.
// Objects are laid out with two-space indents down to `depth`; deeper values (and the items of
// long arrays) are one compact line each, which keeps big traces both small and readable.
import { closeSync, openSync, writeSync } from 'node:fs';

const CHUNK = 1 << 20;
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

interface Sink {
  write(text: string): void;
}

class ChunkedWriter implements Sink {
  private parts: string[] = [];
  private size = 0;
  private readonly fd: number;

  constructor(fd: number) {
    this.fd = fd;
  }

  write(text: string): void {
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= CHUNK) this.flush();
  }

  flush(): void {
    if (this.parts.length === 0) return;
    const text = this.parts.join('');
    this.parts = [];
    this.size = 0;
    let buf = Buffer.from(text, 'utf8');
    while (buf.length > 0) {
      let n: number;
      try {
        n = writeSync(this.fd, buf);
      } catch (err) {
        // stdout may be a non-blocking pipe: wait for the reader instead of failing
        if (err instanceof Error && 'code' in err && err.code === 'EAGAIN') {
          Atomics.wait(PAUSE, 0, 0, 2);
          continue;
        }
        throw err;
      }
      buf = buf.subarray(n);
    }
  }
}

export interface JsonLayout {
  /** Nesting levels laid out on several lines; 0 = one line for the whole value. */
  readonly depth: number;
}

const isScalar = (v: unknown): boolean => v === null || typeof v !== 'object';

function emit(w: Sink, value: unknown, level: number, layout: JsonLayout): void {
  if (isScalar(value)) {
    w.write(JSON.stringify(value) ?? 'null');
    return;
  }
  // an array of numbers or strings (action indices, changes) stays on one line
  const pretty = level < layout.depth && !(Array.isArray(value) && value.every(isScalar));
  const pad = pretty ? `\n${'  '.repeat(level + 1)}` : '';
  const close = pretty ? `\n${'  '.repeat(level)}` : '';
  if (Array.isArray(value)) {
    if (value.length === 0) return void w.write('[]');
    w.write('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) w.write(',');
      w.write(pad);
      emit(w, value[i] === undefined ? null : value[i], level + 1, layout);
    }
    w.write(`${close}]`);
    return;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined && typeof v !== 'function');
  if (entries.length === 0) return void w.write('{}');
  w.write('{');
  entries.forEach(([k, v], i) => {
    if (i > 0) w.write(',');
    w.write(`${pad}${JSON.stringify(k)}:${pretty ? ' ' : ''}`);
    emit(w, v, level + 1, layout);
  });
  w.write(`${close}}`);
}

/** `value` as JSON text laid out as the writers below lay it out (for small values: goldens, tests). */
export function jsonText(value: unknown, layout: JsonLayout): string {
  const parts: string[] = [];
  emit({ write: (t) => void parts.push(t) }, value, 0, layout);
  return `${parts.join('')}\n`;
}

/** Write `value` as JSON (and a final newline) to an open file descriptor (1 = stdout). */
export function writeJsonFd(fd: number, value: unknown, layout: JsonLayout): void {
  const w = new ChunkedWriter(fd);
  emit(w, value, 0, layout);
  w.write('\n');
  w.flush();
}

/** Write `value` as JSON to a file (created or truncated). */
export function writeJsonFile(path: string, value: unknown, layout: JsonLayout): void {
  const fd = openSync(path, 'w');
  try {
    writeJsonFd(fd, value, layout);
  } finally {
    closeSync(fd);
  }
}
