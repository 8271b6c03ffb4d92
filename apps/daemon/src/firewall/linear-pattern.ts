/**
 * The firewall's pattern engine (issue 23, docs/firewall.md "Patterns"): a pattern compiles to a
 * Thompson NFA and a test simulates it over the text once, left to right, so its cost is at most
 * (text length × program size) steps whatever the text. A test runs in slices of a few thousand
 * steps and yields the event loop between them, and it stops with `over-budget` when the check's
 * step budget runs out: a peer's words can neither stall the daemon nor pass a rule by being slow.
 */
import { parsePattern, type CharSet, type Node } from "./pattern-parse.js";

/** The most NFA instructions one pattern may compile to (after `{m,n}` copies). */
export const MAX_PROGRAM = 10_000;
/** Steps run between two looks at the clock. */
export const SLICE_STEPS = 20_000;
/** How long a test holds the event loop before it yields (docs/firewall.md "Budgets"). */
export const SLICE_MS = 2;

const CHAR = 0;
const SPLIT = 1;
const JMP = 2;
const ASSERT = 3;
const MATCH = 4;
const ASSERTS = { start: 0, end: 1, word: 2, notWord: 3 } as const;

interface SetMatcher {
  readonly ascii: Uint8Array;
  readonly ranges: Int32Array;
  readonly negated: boolean;
}

export interface LinearPattern {
  readonly source: string;
  readonly flags: string;
  readonly op: Int32Array;
  readonly a: Int32Array;
  readonly b: Int32Array;
  readonly sets: readonly SetMatcher[];
  readonly icase: boolean;
  readonly multiline: boolean;
  readonly unicode: boolean;
  /** Which code points can begin a match: while no thread is alive, other positions are skipped. */
  readonly first: { readonly ascii: Uint8Array; readonly nonAscii: boolean } | undefined;
  /** Scans not in use, reused so that a test allocates nothing. */
  readonly idle: Scan[];
}

export type Compiled =
  { readonly ok: true; readonly pattern: LinearPattern } | { readonly ok: false; readonly message: string };

function inRanges(ranges: Int32Array, cp: number): boolean {
  let lo = 0;
  let hi = ranges.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < ranges[mid * 2]!) hi = mid - 1;
    else if (cp > ranges[mid * 2 + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}

function foldsOf(cp: number): number[] {
  const s = String.fromCodePoint(cp);
  const out: number[] = [];
  for (const other of [s.toLowerCase(), s.toUpperCase()]) {
    const c = other.codePointAt(0)!;
    if (other.length === String.fromCodePoint(c).length && c !== cp) out.push(c);
  }
  return out;
}

function member(set: SetMatcher, cp: number, icase: boolean): boolean {
  let hit = inRanges(set.ranges, cp);
  if (!hit && icase) hit = foldsOf(cp).some((c) => inRanges(set.ranges, c));
  return hit !== set.negated;
}

function matcherOf(set: CharSet, icase: boolean): SetMatcher {
  const ranges = Int32Array.from(set.ranges.flat());
  const partial: SetMatcher = { ascii: new Uint8Array(128), ranges, negated: set.negated };
  for (let cp = 0; cp < 128; cp++) partial.ascii[cp] = member(partial, cp, icase) ? 1 : 0;
  return partial;
}

class Emitter {
  readonly op: number[] = [];
  readonly a: number[] = [];
  readonly b: number[] = [];
  readonly sets: CharSet[] = [];

  push(op: number, a = 0, b = 0): number {
    if (this.op.length >= MAX_PROGRAM) throw new RangeError();
    this.op.push(op);
    this.a.push(a);
    this.b.push(b);
    return this.op.length - 1;
  }

  emit(node: Node): void {
    switch (node.t) {
      case "empty":
        return;
      case "set":
        this.sets.push(node.set);
        this.push(CHAR, this.sets.length - 1);
        return;
      case "assert":
        this.push(ASSERT, ASSERTS[node.kind]);
        return;
      case "seq":
        for (const item of node.items) this.emit(item);
        return;
      case "alt": {
        const jumps: number[] = [];
        node.options.forEach((option, i) => {
          if (i === node.options.length - 1) return this.emit(option);
          const split = this.push(SPLIT, this.op.length + 1);
          this.emit(option);
          jumps.push(this.push(JMP));
          this.b[split] = this.op.length;
        });
        for (const j of jumps) this.a[j] = this.op.length;
        return;
      }
      case "repeat": {
        for (let i = 0; i < node.min; i++) this.emit(node.node);
        if (node.max === Infinity) {
          const split = this.push(SPLIT, this.op.length + 1);
          this.emit(node.node);
          this.push(JMP, split);
          this.b[split] = this.op.length;
          return;
        }
        const splits: number[] = [];
        for (let i = node.min; i < node.max; i++) {
          splits.push(this.push(SPLIT, this.op.length + 1));
          this.emit(node.node);
        }
        for (const s of splits) this.b[s] = this.op.length;
        return;
      }
    }
  }
}

/**
 * The code points that can begin a match: the union of the sets reachable from the start without
 * reading (assertions taken as holding, so the union is never too small); undefined when the
 * pattern can match the empty string there, and every position must be tried.
 */
function firstOf(emitter: Emitter, sets: readonly SetMatcher[], icase: boolean): LinearPattern["first"] {
  const ascii = new Uint8Array(128);
  let nonAscii = false;
  const seen = new Set<number>();
  const stack = [0];
  while (stack.length > 0) {
    const at = stack.pop()!;
    if (seen.has(at)) continue;
    seen.add(at);
    switch (emitter.op[at]!) {
      case MATCH:
        return undefined;
      case CHAR: {
        const set = sets[emitter.a[at]!]!;
        for (let cp = 0; cp < 128; cp++) if (set.ascii[cp] === 1) ascii[cp] = 1;
        nonAscii ||= icase || set.negated || (set.ranges[set.ranges.length - 1] ?? 0) >= 128;
        break;
      }
      case SPLIT:
        stack.push(emitter.a[at]!, emitter.b[at]!);
        break;
      case JMP:
        stack.push(emitter.a[at]!);
        break;
      case ASSERT:
        stack.push(at + 1);
        break;
    }
  }
  return { ascii, nonAscii };
}

/** Compiles a pattern, or says why the engine cannot run it. */
export function compilePattern(source: string, flags = ""): Compiled {
  const parsed = parsePattern(source, flags);
  if (!parsed.ok) return parsed;
  const emitter = new Emitter();
  try {
    emitter.emit(parsed.node);
    emitter.push(MATCH);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return { ok: false, message: `expands to more than ${MAX_PROGRAM} states; use smaller {m,n} bounds` };
  }
  const icase = flags.includes("i");
  const sets = emitter.sets.map((s) => matcherOf(s, icase));
  return {
    ok: true,
    pattern: {
      source,
      flags,
      op: Int32Array.from(emitter.op),
      a: Int32Array.from(emitter.a),
      b: Int32Array.from(emitter.b),
      sets,
      icase,
      multiline: flags.includes("m"),
      unicode: flags.includes("u"),
      first: firstOf(emitter, sets, icase),
      idle: [],
    },
  };
}

const isWord = (cp: number): boolean =>
  (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || cp === 0x5f || (cp >= 0x61 && cp <= 0x7a);
const isLineEnd = (cp: number): boolean => cp === 0x0a || cp === 0x0d || cp === 0x2028 || cp === 0x2029;

/** One test of a pattern over a text, resumable slice by slice. */
class Scan {
  private text = "";
  private clist: Int32Array;
  private nlist: Int32Array;
  private clen = 0;
  private nlen = 0;
  private readonly mark: Uint32Array;
  private readonly stack: Int32Array;
  private gen = 1;
  private pos = 0;
  private prev = -1;
  private matched = false;
  steps = 0;

  constructor(private readonly p: LinearPattern) {
    const n = p.op.length;
    this.clist = new Int32Array(n);
    this.nlist = new Int32Array(n);
    this.mark = new Uint32Array(n);
    this.stack = new Int32Array(2 * n + 2);
  }

  reset(text: string): void {
    this.text = text;
    this.clen = 0;
    this.pos = 0;
    this.prev = -1;
    this.matched = false;
    this.steps = 0;
    this.gen++;
  }

  private codeAt(pos: number): number {
    if (pos >= this.text.length) return -1;
    return this.p.unicode ? this.text.codePointAt(pos)! : this.text.charCodeAt(pos);
  }

  private holds(kind: number, prev: number, cur: number): boolean {
    switch (kind) {
      case ASSERTS.start:
        return prev === -1 || (this.p.multiline && isLineEnd(prev));
      case ASSERTS.end:
        return cur === -1 || (this.p.multiline && isLineEnd(cur));
      case ASSERTS.word:
        return (prev !== -1 && isWord(prev)) !== (cur !== -1 && isWord(cur));
      default:
        return (prev !== -1 && isWord(prev)) === (cur !== -1 && isWord(cur));
    }
  }

  /** Adds the epsilon closure of `pc`, seen between `prev` and `cur`, to the list being built. */
  private close(list: Int32Array, length: number, pc: number, prev: number, cur: number): number {
    const { op, a, b } = this.p;
    const { mark, stack, gen } = this;
    let top = 0;
    stack[top++] = pc;
    while (top > 0) {
      const at = stack[--top]!;
      if (mark[at] === gen) continue;
      mark[at] = gen;
      this.steps++;
      switch (op[at]!) {
        case CHAR:
          list[length++] = at;
          break;
        case SPLIT:
          stack[top++] = b[at]!;
          stack[top++] = a[at]!;
          break;
        case JMP:
          stack[top++] = a[at]!;
          break;
        case ASSERT:
          if (this.holds(a[at]!, prev, cur)) stack[top++] = at + 1;
          break;
        case MATCH:
          this.matched = true;
          break;
      }
    }
    return length;
  }

  /** Runs until the text is read, a match is found, or `limit` more steps are spent. */
  run(limit: number): boolean | undefined {
    const stop = this.steps + limit;
    const { a, sets, icase, first } = this.p;
    while (this.steps < stop) {
      let cur = this.codeAt(this.pos);
      if (this.clen === 0 && first !== undefined) {
        while (cur !== -1 && !(cur < 128 ? first.ascii[cur] === 1 : first.nonAscii) && this.steps < stop) {
          this.steps++;
          this.pos += cur > 0xffff ? 2 : 1;
          this.prev = cur;
          cur = this.codeAt(this.pos);
        }
        if (cur === -1) return false;
        if (this.steps >= stop) return undefined;
      }
      this.clen = this.close(this.clist, this.clen, 0, this.prev, cur);
      if (this.matched) return true;
      if (cur === -1) return false;
      const width = cur > 0xffff ? 2 : 1;
      const next = this.codeAt(this.pos + width);
      this.gen++;
      this.nlen = 0;
      for (let i = 0; i < this.clen; i++) {
        const pc = this.clist[i]!;
        this.steps++;
        const set = sets[a[pc]!]!;
        const hit = cur < 128 ? set.ascii[cur] === 1 : member(set, cur, icase);
        if (hit) this.nlen = this.close(this.nlist, this.nlen, pc + 1, cur, next);
        if (this.matched) return true;
      }
      [this.clist, this.nlist] = [this.nlist, this.clist];
      this.clen = this.nlen;
      this.pos += width;
      this.prev = cur;
    }
    return undefined;
  }
}

/** A check's allowance of NFA steps, shared by every pattern it tests. */
export interface PatternBudget {
  remaining: number;
}

export type PatternOutcome = "match" | "no-match" | "over-budget";

const yieldLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Tests `pattern` anywhere in `text`, yielding the event loop after each SLICE_MS of work. */
export async function testPattern(
  pattern: LinearPattern,
  text: string,
  budget: PatternBudget,
): Promise<PatternOutcome> {
  const scan = take(pattern, text);
  try {
    for (let started = performance.now(); ;) {
      const before = scan.steps;
      const result = scan.run(Math.min(SLICE_STEPS, budget.remaining));
      budget.remaining -= scan.steps - before;
      if (result !== undefined) return result ? "match" : "no-match";
      if (budget.remaining <= 0) return "over-budget";
      if (performance.now() - started >= SLICE_MS) {
        await yieldLoop();
        started = performance.now();
      }
    }
  } finally {
    pattern.idle.push(scan);
  }
}

function take(pattern: LinearPattern, text: string): Scan {
  const scan = pattern.idle.pop() ?? new Scan(pattern);
  scan.reset(text);
  return scan;
}

/** The same test without a budget or yields, for tests that compare the engine with RegExp. */
export function testPatternNow(pattern: LinearPattern, text: string): boolean {
  const scan = take(pattern, text);
  try {
    for (;;) {
      const result = scan.run(Number.MAX_SAFE_INTEGER);
      if (result !== undefined) return result;
    }
  } finally {
    pattern.idle.push(scan);
  }
}
