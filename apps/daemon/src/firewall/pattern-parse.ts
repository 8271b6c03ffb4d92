/**
 * The syntax of a firewall pattern (docs/firewall.md "Patterns"): JavaScript regular expression
 * syntax without the constructs that need backtracking. Parsing returns a tree or a value naming
 * what cannot run (a backreference, a lookaround), never an exception; pattern-program.ts turns the
 * tree into a Thompson NFA that runs in time linear in the text.
 */

/** A set of code points: sorted, disjoint [from, to] ranges, optionally negated. */
export interface CharSet {
  readonly ranges: readonly (readonly [number, number])[];
  readonly negated: boolean;
}

export type Node =
  | { readonly t: "empty" }
  | { readonly t: "set"; readonly set: CharSet }
  | { readonly t: "seq"; readonly items: readonly Node[] }
  | { readonly t: "alt"; readonly options: readonly Node[] }
  | { readonly t: "repeat"; readonly node: Node; readonly min: number; readonly max: number }
  | { readonly t: "assert"; readonly kind: "start" | "end" | "word" | "notWord" };

export type Parsed = { readonly ok: true; readonly node: Node } | { readonly ok: false; readonly message: string };

/** The largest bound a `{m,n}` may name. */
export const MAX_BOUND = 1000;

const DIGIT: CharSet = { ranges: [[0x30, 0x39]], negated: false };
const WORD: CharSet = {
  ranges: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x5f, 0x5f],
    [0x61, 0x7a],
  ],
  negated: false,
};
const SPACE: CharSet = {
  ranges: [
    [0x09, 0x0d],
    [0x20, 0x20],
    [0xa0, 0xa0],
    [0x1680, 0x1680],
    [0x2000, 0x200a],
    [0x2028, 0x2029],
    [0x202f, 0x202f],
    [0x205f, 0x205f],
    [0x3000, 0x3000],
    [0xfeff, 0xfeff],
  ],
  negated: false,
};
const LINE_TERMINATORS: CharSet = {
  ranges: [
    [0x0a, 0x0a],
    [0x0d, 0x0d],
    [0x2028, 0x2029],
  ],
  negated: true,
};
const ANY: CharSet = { ranges: [], negated: true };

const single = (cp: number): CharSet => ({ ranges: [[cp, cp]], negated: false });
const negate = (set: CharSet): CharSet => ({ ranges: set.ranges, negated: !set.negated });

/** The complement of positive ranges over all code points. */
function complement(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const out: [number, number][] = [];
  let next = 0;
  for (const [from, to] of normalize(ranges)) {
    if (from > next) out.push([next, from - 1]);
    next = to + 1;
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}

function normalize(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [from, to] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

/** A pattern the engine cannot run; caught in parsePattern and returned as a value. */
class Failure extends Error {
  override readonly name = "PatternFailure";
}

class Parser {
  private i = 0;
  constructor(
    private readonly source: string,
    private readonly dotAll: boolean,
    private readonly unicode: boolean,
  ) {}

  parse(): Node {
    const node = this.alternation();
    if (this.i < this.source.length) throw new Failure(`has an unmatched ")" at ${this.i}`);
    return node;
  }

  private peek(): string | undefined {
    return this.source[this.i];
  }

  private alternation(): Node {
    const options = [this.sequence()];
    while (this.peek() === "|") {
      this.i++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0]! : { t: "alt", options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    for (let c = this.peek(); c !== undefined && c !== "|" && c !== ")"; c = this.peek()) {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    if (items.length === 0) return { t: "empty" };
    return items.length === 1 ? items[0]! : { t: "seq", items };
  }

  private quantified(atom: Node): Node {
    const c = this.peek();
    let min: number;
    let max: number;
    if (c === "*") [min, max] = [0, Infinity];
    else if (c === "+") [min, max] = [1, Infinity];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{") {
      const bound = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.i));
      if (bound === null) {
        if (this.unicode) throw new Failure(`has an incomplete quantifier at ${this.i}`);
        return atom;
      }
      min = Number(bound[1]);
      max = bound[2] === undefined ? min : bound[3] === "" ? Infinity : Number(bound[3]);
      if (min > MAX_BOUND || (max !== Infinity && max > MAX_BOUND))
        throw new Failure(`repeats at most ${MAX_BOUND} times in a {m,n} bound`);
      if (max < min) throw new Failure(`has a quantifier {${min},${max}} out of order`);
      this.i += bound[0].length - 1;
    } else return atom;
    this.i++;
    if (this.peek() === "?") this.i++;
    if (atom.t === "assert" || atom.t === "empty") throw new Failure(`has nothing to repeat at ${this.i - 1}`);
    const next = this.peek();
    if (next === "*" || next === "+" || next === "?" || (next === "{" && /^\{\d/.test(this.source.slice(this.i))))
      throw new Failure(`has nothing to repeat at ${this.i}`);
    return { t: "repeat", node: atom, min, max };
  }

  private atom(): Node {
    const c = this.source[this.i]!;
    switch (c) {
      case "^":
        this.i++;
        return { t: "assert", kind: "start" };
      case "$":
        this.i++;
        return { t: "assert", kind: "end" };
      case ".":
        this.i++;
        return { t: "set", set: this.dotAll ? ANY : LINE_TERMINATORS };
      case "(":
        return this.group();
      case "[":
        return { t: "set", set: this.charClass() };
      case "\\":
        return this.escape();
      case "*":
      case "+":
      case "?":
        throw new Failure(`has nothing to repeat at ${this.i}`);
      case "{":
        if (this.unicode) throw new Failure(`has a lone "{" at ${this.i}; write \\{`);
        break;
      case "}":
      case "]":
        if (this.unicode) throw new Failure(`has a lone "${c}" at ${this.i}; write \\${c}`);
        break;
    }
    const cp = this.source.codePointAt(this.i)!;
    this.i += cp > 0xffff ? 2 : 1;
    return { t: "set", set: single(cp) };
  }

  private group(): Node {
    this.i++;
    const rest = this.source.slice(this.i);
    if (rest.startsWith("?=") || rest.startsWith("?!") || rest.startsWith("?<=") || rest.startsWith("?<!"))
      throw new Failure("uses a lookahead or lookbehind ((?=, (?!, (?<=, (?<!), which cannot run in linear time");
    if (rest.startsWith("?:")) this.i += 2;
    else if (rest.startsWith("?<")) {
      const name = /^\?<([A-Za-z_$][A-Za-z0-9_$]*)>/.exec(rest);
      if (name === null) throw new Failure(`has an invalid group name at ${this.i}`);
      this.i += name[0].length;
    } else if (rest.startsWith("?")) throw new Failure(`has an unsupported group "(?" at ${this.i - 1}`);
    const node = this.alternation();
    if (this.peek() !== ")") throw new Failure('has an unterminated group: a "(" without its ")"');
    this.i++;
    return node;
  }

  private escape(): Node {
    const c = this.source[this.i + 1];
    if (c === "b" || c === "B") {
      this.i += 2;
      return { t: "assert", kind: c === "b" ? "word" : "notWord" };
    }
    if (c !== undefined && /[1-9]/.test(c))
      throw new Failure(`uses a backreference (\\${c}), which cannot run in linear time`);
    if (c === "k") throw new Failure("uses a named backreference (\\k<…>), which cannot run in linear time");
    return { t: "set", set: this.classEscape(false) };
  }

  /** An escape at this.i (the backslash), as a set; inside a class `\b` is a backspace. */
  private classEscape(inClass: boolean): CharSet {
    const c = this.source[this.i + 1];
    if (c === undefined) throw new Failure("ends with a lone backslash");
    this.i += 2;
    switch (c) {
      case "d":
        return DIGIT;
      case "D":
        return negate(DIGIT);
      case "w":
        return WORD;
      case "W":
        return negate(WORD);
      case "s":
        return SPACE;
      case "S":
        return negate(SPACE);
      case "n":
        return single(0x0a);
      case "r":
        return single(0x0d);
      case "t":
        return single(0x09);
      case "f":
        return single(0x0c);
      case "v":
        return single(0x0b);
      case "0":
        if (/[0-9]/.test(this.source[this.i] ?? "")) throw new Failure("uses an octal escape; write \\xHH");
        return single(0);
      case "b":
        if (inClass) return single(0x08);
        break;
      case "x": {
        const hex = /^[0-9a-fA-F]{2}/.exec(this.source.slice(this.i));
        if (hex === null) throw new Failure("has an incomplete \\x escape; write \\xHH");
        this.i += 2;
        return single(parseInt(hex[0], 16));
      }
      case "u": {
        const rest = this.source.slice(this.i);
        const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(rest);
        if (braced !== null && parseInt(braced[1]!, 16) <= 0x10ffff) {
          this.i += braced[0].length;
          return single(parseInt(braced[1]!, 16));
        }
        const four = /^[0-9a-fA-F]{4}/.exec(rest);
        if (four === null) throw new Failure("has an incomplete \\u escape; write \\uHHHH or \\u{H…}");
        this.i += 4;
        return single(parseInt(four[0], 16));
      }
      case "p":
      case "P":
        throw new Failure("uses a Unicode property escape (\\p{…}), which the firewall's engine does not run");
      case "c":
        throw new Failure("uses a control escape (\\c); write \\xHH");
    }
    if (/[\^$\\.*+?()[\]{}|/-]/.test(c)) return single(c.charCodeAt(0));
    if (this.unicode || /[A-Za-z0-9]/.test(c)) throw new Failure(`has an unknown escape \\${c}`);
    return single(this.source.codePointAt(this.i - 1)!);
  }

  private charClass(): CharSet {
    this.i++;
    let negated = false;
    if (this.peek() === "^") {
      negated = true;
      this.i++;
    }
    const ranges: [number, number][] = [];
    for (;;) {
      const c = this.peek();
      if (c === undefined) throw new Failure('has an unterminated character class: a "[" without its "]"');
      if (c === "]") break;
      const from = this.classAtom();
      if (this.peek() === "-" && this.source[this.i + 1] !== "]" && this.source[this.i + 1] !== undefined) {
        this.i++;
        const to = this.classAtom();
        const lo = singleOf(from);
        const hi = singleOf(to);
        if (lo === undefined || hi === undefined) {
          if (this.unicode) throw new Failure("has a class range with a class escape at one end");
          ranges.push(...positive(from), [0x2d, 0x2d], ...positive(to));
        } else if (hi < lo) throw new Failure("has a character class range out of order");
        else ranges.push([lo, hi]);
      } else ranges.push(...positive(from));
    }
    this.i++;
    return { ranges: normalize(ranges), negated };
  }

  private classAtom(): CharSet {
    if (this.peek() === "\\") return this.classEscape(true);
    const cp = this.source.codePointAt(this.i)!;
    this.i += cp > 0xffff ? 2 : 1;
    return single(cp);
  }
}

function singleOf(set: CharSet): number | undefined {
  const only = set.ranges[0];
  return !set.negated && set.ranges.length === 1 && only![0] === only![1] ? only![0] : undefined;
}

function positive(set: CharSet): [number, number][] {
  return set.negated ? complement(set.ranges) : set.ranges.map(([a, b]) => [a, b]);
}

/** Parses `source` under `flags` (a subset of "imsu"). */
export function parsePattern(source: string, flags: string): Parsed {
  try {
    return { ok: true, node: new Parser(source, flags.includes("s"), flags.includes("u")).parse() };
  } catch (error) {
    if (error instanceof Failure) return { ok: false, message: error.message };
    throw error;
  }
}
