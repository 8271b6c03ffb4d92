/**
 * Where each field of a JSON text sits, so a refusal that names `middlewares.0.rules.1.decision`
 * can be shown at that line of the owner's draft. A strict JSON scanner (RFC 8259): it records
 * the line and column of every member key and array element by its dotted path, and on a syntax
 * error says where. It reads positions only; the value itself comes from JSON.parse.
 */

export interface TextPosition {
  readonly line: number;
  readonly column: number;
}

export type LocatedJson =
  | { readonly ok: true; readonly fields: ReadonlyMap<string, TextPosition> }
  | { readonly ok: false; readonly message: string; readonly at: TextPosition };

class SyntaxProblem extends Error {
  constructor(
    message: string,
    readonly index: number,
  ) {
    super(message);
  }
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /[0-9a-fA-F]{4}/y;

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i += 1) if (text[i] === "\n") starts.push(i + 1);
  return starts;
}

/** The 1-based line and column of `index` in a text whose lines begin at `starts`. */
function positionOf(starts: readonly number[], index: number): TextPosition {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= index) low = mid;
    else high = mid - 1;
  }
  return { line: low + 1, column: index - starts[low]! + 1 };
}

class Scanner {
  private index = 0;
  readonly found = new Map<string, number>();

  constructor(private readonly text: string) {}

  document(): void {
    this.skipWhitespace();
    this.value("");
    this.skipWhitespace();
    if (this.index < this.text.length) this.fail("unexpected text after the end of the document");
  }

  private fail(message: string): never {
    throw new SyntaxProblem(message, this.index);
  }

  private skipWhitespace(): void {
    while (this.index < this.text.length && WHITESPACE.has(this.text[this.index]!)) this.index += 1;
  }

  private expect(char: string, what: string): void {
    if (this.text[this.index] !== char) this.fail(`expected ${what}`);
    this.index += 1;
  }

  private value(path: string): void {
    this.found.set(path, this.index);
    const char = this.text[this.index];
    if (char === "{") return this.object(path);
    if (char === "[") return this.array(path);
    if (char === '"') {
      this.string();
      return;
    }
    for (const literal of ["true", "false", "null"]) {
      if (this.text.startsWith(literal, this.index)) {
        this.index += literal.length;
        return;
      }
    }
    NUMBER.lastIndex = this.index;
    if (NUMBER.test(this.text)) {
      this.index = NUMBER.lastIndex;
      return;
    }
    this.fail(char === undefined ? "the document ends where a value was expected" : "expected a value");
  }

  private object(path: string): void {
    this.index += 1;
    this.skipWhitespace();
    if (this.text[this.index] === "}") {
      this.index += 1;
      return;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.index] !== '"') this.fail("expected a member name in double quotes");
      const keyAt = this.index;
      const key = this.string();
      const member = path === "" ? key : `${path}.${key}`;
      this.skipWhitespace();
      this.expect(":", '":" after the member name');
      this.skipWhitespace();
      this.value(member);
      // A member's place is its name, where the owner reads it.
      this.found.set(member, keyAt);
      this.skipWhitespace();
      if (this.text[this.index] === ",") {
        this.index += 1;
        continue;
      }
      this.expect("}", '"," or "}"');
      return;
    }
  }

  private array(path: string): void {
    this.index += 1;
    this.skipWhitespace();
    if (this.text[this.index] === "]") {
      this.index += 1;
      return;
    }
    for (let position = 0; ; position += 1) {
      this.skipWhitespace();
      this.value(path === "" ? String(position) : `${path}.${position}`);
      this.skipWhitespace();
      if (this.text[this.index] === ",") {
        this.index += 1;
        continue;
      }
      this.expect("]", '"," or "]"');
      return;
    }
  }

  /** Reads a string token and returns its value. */
  private string(): string {
    const start = this.index;
    this.index += 1;
    for (;;) {
      const char = this.text[this.index];
      if (char === undefined) {
        this.index = start;
        this.fail("a string is not closed");
      }
      if (char === '"') break;
      if (char < " ") this.fail("a string holds a raw control character (a line break must be written \\n)");
      if (char === "\\") {
        const next = this.text[this.index + 1];
        if (next === "u") {
          HEX4.lastIndex = this.index + 2;
          if (!HEX4.test(this.text)) this.fail("\\u takes four hexadecimal digits");
          this.index += 6;
          continue;
        }
        if (next === undefined || !ESCAPES.has(next)) this.fail("unknown escape in a string");
        this.index += 2;
        continue;
      }
      this.index += 1;
    }
    this.index += 1;
    return JSON.parse(this.text.slice(start, this.index)) as string;
  }
}

/** Every field's position in `text`, or where and why it is not JSON. */
export function locateJson(text: string): LocatedJson {
  const starts = lineStarts(text);
  const scanner = new Scanner(text);
  try {
    scanner.document();
  } catch (error) {
    if (!(error instanceof SyntaxProblem)) throw error;
    return { ok: false, message: error.message, at: positionOf(starts, error.index) };
  }
  const fields = new Map<string, TextPosition>();
  for (const [path, index] of scanner.found) fields.set(path, positionOf(starts, index));
  return { ok: true, fields };
}
