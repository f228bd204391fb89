import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { validation } from './errors';
import { addNumbers, compareNumbers, normalNumber } from './numbers';
import { RESERVED } from './reserved-words';

// DynamoDB's expression language, as the in-memory database reads it: condition, filter and key
// condition expressions (comparisons, BETWEEN, IN, AND, OR, NOT, the functions attribute_exists,
// attribute_not_exists, attribute_type, begins_with, contains and size), update expressions (SET
// with + and -, if_not_exists and list_append; REMOVE; ADD; DELETE) and projections. Whatever else
// is refused with a ValidationException that says so, never read another way.

export type Av = AttributeValue;
export type Item = Record<string, Av>;
type Segment = string | number; // an attribute's name, or a list's index
export type Path = Segment[];

export type Operand = { kind: 'path'; path: Path } | { kind: 'value'; name: string } | { kind: 'size'; path: Path };
export type Condition =
  | { kind: 'and' | 'or'; left: Condition; right: Condition }
  | { kind: 'not'; of: Condition }
  | { kind: 'compare'; op: '=' | '<>' | '<' | '<=' | '>' | '>='; left: Operand; right: Operand }
  | { kind: 'between'; of: Operand; low: Operand; high: Operand }
  | { kind: 'in'; of: Operand; list: Operand[] }
  | { kind: 'function'; name: 'attribute_exists' | 'attribute_not_exists' | 'attribute_type' | 'begins_with' | 'contains'; args: Operand[] };

export type SetValue =
  | Operand
  | { kind: 'if_not_exists'; path: Path; otherwise: SetValue }
  | { kind: 'list_append'; first: SetValue; second: SetValue }
  | { kind: 'arithmetic'; op: '+' | '-'; left: SetValue; right: SetValue };
export interface Update {
  set: { path: Path; value: SetValue }[];
  remove: Path[];
  add: { path: Path; value: string }[];
  delete: { path: Path; value: string }[];
}

// The names and values of a request, and which of them its expressions used: DynamoDB refuses a
// request that defines one its expressions never use.
export class Context {
  readonly usedNames = new Set<string>();
  readonly usedValues = new Set<string>();
  constructor(
    readonly names: Record<string, string> = {},
    readonly values: Item = {},
  ) {}
  name(token: string): string {
    const n = this.names[token];
    if (n === undefined)
      throw validation(
        `Value provided in ExpressionAttributeNames unused in expressions: An expression attribute name used in the document path is not defined; attribute name: ${token}`,
      );
    this.usedNames.add(token);
    return n;
  }
  value(token: string): Av {
    const v = this.values[token];
    if (v === undefined) throw validation(`An expression attribute value used in expression is not defined; attribute value: ${token}`);
    this.usedValues.add(token);
    return v;
  }
  checkAllUsed(): void {
    const names = Object.keys(this.names).filter((n) => !this.usedNames.has(n));
    if (names.length) throw validation(`Value provided in ExpressionAttributeNames unused in expressions: keys: {${names.join(', ')}}`);
    const values = Object.keys(this.values).filter((v) => !this.usedValues.has(v));
    if (values.length) throw validation(`Value provided in ExpressionAttributeValues unused in expressions: keys: {${values.join(', ')}}`);
  }
}

// ---- Reading -------------------------------------------------------------------------------

type Token = { type: 'word' | 'name' | 'value' | 'number' | 'punct'; text: string };
const PUNCT = ['<>', '<=', '>=', '=', '<', '>', '(', ')', ',', '.', '[', ']', '+', '-'];

function tokens(expression: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < expression.length) {
    const c = expression[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const m = /^(#[A-Za-z0-9_]+)|^(:[A-Za-z0-9_]+)|^([A-Za-z_][A-Za-z0-9_]*)|^(\d+)/.exec(expression.slice(i));
    if (m) {
      out.push({ type: m[1] ? 'name' : m[2] ? 'value' : m[3] ? 'word' : 'number', text: m[0] });
      i += m[0].length;
      continue;
    }
    const p = PUNCT.find((q) => expression.startsWith(q, i));
    if (!p) throw validation(`Invalid expression: Syntax error; token: "${c}", near: "${expression.slice(i, i + 10)}"`);
    out.push({ type: 'punct', text: p });
    i += p.length;
  }
  return out;
}

class Reader {
  private at = 0;
  private readonly ts: Token[];
  constructor(
    private readonly expression: string,
    private readonly ctx: Context,
  ) {
    this.ts = tokens(expression);
  }
  private peek(k = 0): Token | undefined {
    return this.ts[this.at + k];
  }
  private isWord(word: string, k = 0) {
    const t = this.peek(k);
    return t?.type === 'word' && t.text.toUpperCase() === word;
  }
  private isPunct(p: string, k = 0) {
    const t = this.peek(k);
    return t?.type === 'punct' && t.text === p;
  }
  private fail(what: string): never {
    const t = this.peek();
    throw validation(`Invalid expression: ${what}; near: "${t ? t.text : '<end>'}" in "${this.expression}"`);
  }
  private expectPunct(p: string) {
    if (!this.isPunct(p)) this.fail(`expected "${p}"`);
    this.at++;
  }
  private expectWord(w: string) {
    if (!this.isWord(w)) this.fail(`expected ${w}`);
    this.at++;
  }
  end() {
    if (this.peek()) this.fail('unexpected token');
  }

  path(): Path {
    const segment = (): string => {
      const t = this.peek();
      if (t?.type === 'name') {
        this.at++;
        return this.ctx.name(t.text);
      }
      if (t?.type === 'word') {
        if (RESERVED.has(t.text.toLowerCase())) throw validation(`Invalid expression: Attribute name is a reserved keyword; reserved keyword: ${t.text}`);
        this.at++;
        return t.text;
      }
      return this.fail('expected an attribute name');
    };
    const path: Path = [segment()];
    for (;;) {
      if (this.isPunct('.')) {
        this.at++;
        path.push(segment());
      } else if (this.isPunct('[')) {
        this.at++;
        const n = this.peek();
        if (n?.type !== 'number') this.fail('expected a list index');
        this.at++;
        path.push(Number(n!.text));
        this.expectPunct(']');
      } else return path;
    }
  }

  operand(): Operand {
    const t = this.peek();
    if (t?.type === 'value') {
      this.at++;
      this.ctx.value(t.text);
      return { kind: 'value', name: t.text };
    }
    if (t?.type === 'word' && t.text === 'size' && this.isPunct('(', 1)) {
      this.at += 2;
      const path = this.path();
      this.expectPunct(')');
      return { kind: 'size', path };
    }
    if (t?.type === 'word' && this.isPunct('(', 1)) this.fail(`the function ${t.text} is not supported here (in memory)`);
    return { kind: 'path', path: this.path() };
  }

  condition(): Condition {
    let left = this.conjunction();
    while (this.isWord('OR')) {
      this.at++;
      left = { kind: 'or', left, right: this.conjunction() };
    }
    return left;
  }
  private conjunction(): Condition {
    let left = this.negation();
    while (this.isWord('AND')) {
      this.at++;
      left = { kind: 'and', left, right: this.negation() };
    }
    return left;
  }
  private negation(): Condition {
    if (this.isWord('NOT')) {
      this.at++;
      return { kind: 'not', of: this.negation() };
    }
    return this.primary();
  }
  private primary(): Condition {
    if (this.isPunct('(')) {
      this.at++;
      const c = this.condition();
      this.expectPunct(')');
      return c;
    }
    const t = this.peek();
    const FUNCTIONS = ['attribute_exists', 'attribute_not_exists', 'attribute_type', 'begins_with', 'contains'] as const;
    const fn = FUNCTIONS.find((f) => t?.type === 'word' && t.text === f);
    if (fn && this.isPunct('(', 1)) {
      this.at += 2;
      const args = [this.operand()];
      while (this.isPunct(',')) {
        this.at++;
        args.push(this.operand());
      }
      this.expectPunct(')');
      const arity = fn === 'attribute_exists' || fn === 'attribute_not_exists' ? 1 : 2;
      if (args.length !== arity) this.fail(`${fn} takes ${arity} operand(s)`);
      if (args[0].kind !== 'path') this.fail(`${fn}'s first operand must be an attribute`);
      return { kind: 'function', name: fn, args };
    }
    const left = this.operand();
    if (this.isWord('BETWEEN')) {
      this.at++;
      const low = this.operand();
      this.expectWord('AND');
      return { kind: 'between', of: left, low, high: this.operand() };
    }
    if (this.isWord('IN')) {
      this.at++;
      this.expectPunct('(');
      const list = [this.operand()];
      while (this.isPunct(',')) {
        this.at++;
        list.push(this.operand());
      }
      this.expectPunct(')');
      return { kind: 'in', of: left, list };
    }
    const op = this.peek();
    if (op?.type !== 'punct' || !['=', '<>', '<', '<=', '>', '>='].includes(op.text)) return this.fail('expected a comparison');
    this.at++;
    return { kind: 'compare', op: op.text as '=', left, right: this.operand() };
  }

  private setValue(): SetValue {
    const left = this.setOperand();
    if (this.isPunct('+') || this.isPunct('-')) {
      const op = this.peek()!.text as '+' | '-';
      this.at++;
      return { kind: 'arithmetic', op, left, right: this.setOperand() };
    }
    return left;
  }
  private setOperand(): SetValue {
    const t = this.peek();
    if (t?.type === 'word' && this.isPunct('(', 1)) {
      if (t.text === 'if_not_exists') {
        this.at += 2;
        const path = this.path();
        this.expectPunct(',');
        const otherwise = this.setOperand();
        this.expectPunct(')');
        return { kind: 'if_not_exists', path, otherwise };
      }
      if (t.text === 'list_append') {
        this.at += 2;
        const first = this.setOperand();
        this.expectPunct(',');
        const second = this.setOperand();
        this.expectPunct(')');
        return { kind: 'list_append', first, second };
      }
      this.fail(`the function ${t.text} is not supported in an update (in memory)`);
    }
    const o = this.operand();
    if (o.kind === 'size') this.fail('size() is not allowed in an update');
    return o;
  }

  update(): Update {
    const u: Update = { set: [], remove: [], add: [], delete: [] };
    const seen = new Set<string>();
    while (this.peek()) {
      const clause = this.peek()!.text.toUpperCase();
      if (!['SET', 'REMOVE', 'ADD', 'DELETE'].includes(clause) || this.peek()!.type !== 'word') this.fail('expected SET, REMOVE, ADD or DELETE');
      if (seen.has(clause)) this.fail(`the ${clause} section may appear only once`);
      seen.add(clause);
      this.at++;
      for (;;) {
        const path = this.path();
        if (clause === 'SET') {
          this.expectPunct('=');
          u.set.push({ path, value: this.setValue() });
        } else if (clause === 'REMOVE') u.remove.push(path);
        else {
          const v = this.peek();
          if (v?.type !== 'value') this.fail(`${clause} takes a value`);
          this.at++;
          this.ctx.value(v!.text);
          (clause === 'ADD' ? u.add : u.delete).push({ path, value: v!.text });
        }
        if (!this.isPunct(',')) break;
        this.at++;
      }
    }
    const all = [...u.set.map((s) => s.path), ...u.remove, ...u.add.map((a) => a.path), ...u.delete.map((d) => d.path)];
    for (let i = 0; i < all.length; i++)
      for (let j = i + 1; j < all.length; j++) {
        const [a, b] = [all[i], all[j]];
        const n = Math.min(a.length, b.length);
        if (a.slice(0, n).every((s, k) => s === b[k]))
          throw validation(
            `Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [${a}], path two: [${b}]`,
          );
      }
    return u;
  }

  projection(): Path[] {
    const paths = [this.path()];
    while (this.isPunct(',')) {
      this.at++;
      paths.push(this.path());
    }
    return paths;
  }
}

export function parseCondition(expression: string, ctx: Context): Condition {
  const r = new Reader(expression, ctx);
  const c = r.condition();
  r.end();
  return c;
}
export function parseUpdate(expression: string, ctx: Context): Update {
  const r = new Reader(expression, ctx);
  const u = r.update();
  r.end();
  return u;
}
export function parseProjection(expression: string, ctx: Context): Path[] {
  const r = new Reader(expression, ctx);
  const p = r.projection();
  r.end();
  return p;
}

// ---- Evaluating ----------------------------------------------------------------------------

const typeOf = (v: Av): string => Object.keys(v).find((k) => (v as unknown as Record<string, unknown>)[k] !== undefined)!;

export function read(item: Item | undefined, path: Path): Av | undefined {
  let v: Av | undefined = item ? { M: item } : undefined;
  for (const s of path) {
    if (!v) return undefined;
    if (typeof s === 'number') v = v.L?.[s];
    else v = v.M?.[s];
  }
  return v;
}

const bytes = (v: Av): Buffer => (v.S !== undefined ? Buffer.from(v.S, 'utf8') : Buffer.from(v.B!));

// Ordering as DynamoDB orders: numbers by value, strings and binaries byte by byte (UTF-8).
export function order(a: Av, b: Av): number | undefined {
  const [ta, tb] = [typeOf(a), typeOf(b)];
  if (ta !== tb) return undefined;
  if (ta === 'N') return compareNumbers(a.N!, b.N!);
  if (ta === 'S' || ta === 'B') return Buffer.compare(bytes(a), bytes(b));
  return undefined;
}

export function equal(a: Av | undefined, b: Av | undefined): boolean {
  if (!a || !b) return false;
  const [ta, tb] = [typeOf(a), typeOf(b)];
  if (ta !== tb) return false;
  switch (ta) {
    case 'N':
    case 'S':
    case 'B':
      return order(a, b) === 0;
    case 'BOOL':
      return a.BOOL === b.BOOL;
    case 'NULL':
      return true;
    case 'L':
      return a.L!.length === b.L!.length && a.L!.every((x, i) => equal(x, b.L![i]));
    case 'M': {
      const [ka, kb] = [Object.keys(a.M!), Object.keys(b.M!)];
      return ka.length === kb.length && ka.every((k) => equal(a.M![k], b.M![k]));
    }
    case 'SS':
    case 'NS':
    case 'BS': {
      const set = (v: Av) => setMembers(v);
      const [sa, sb] = [set(a), set(b)];
      return sa.length === sb.length && sa.every((x) => sb.some((y) => equal(x, y)));
    }
  }
  return false;
}

const setMembers = (v: Av): Av[] => (v.SS ? v.SS.map((S) => ({ S })) : v.NS ? v.NS.map((N) => ({ N })) : v.BS ? v.BS.map((B) => ({ B })) : []);

function operandValue(o: Operand, item: Item | undefined, ctx: Context): Av | undefined {
  if (o.kind === 'value') return ctx.values[o.name];
  const v = read(item, o.path);
  if (o.kind === 'path') return v;
  if (!v) return undefined;
  const t = typeOf(v);
  const size =
    t === 'S'
      ? Buffer.byteLength(v.S!, 'utf8')
      : t === 'B'
        ? v.B!.length
        : t === 'L'
          ? v.L!.length
          : t === 'M'
            ? Object.keys(v.M!).length
            : setMembers(v).length;
  if (t === 'N' || t === 'BOOL' || t === 'NULL')
    throw validation(`Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: ${t}`);
  return { N: String(size) };
}

export function evaluate(c: Condition, item: Item | undefined, ctx: Context): boolean {
  switch (c.kind) {
    case 'and':
      return evaluate(c.left, item, ctx) && evaluate(c.right, item, ctx);
    case 'or':
      return evaluate(c.left, item, ctx) || evaluate(c.right, item, ctx);
    case 'not':
      return !evaluate(c.of, item, ctx);
    case 'compare': {
      const [a, b] = [operandValue(c.left, item, ctx), operandValue(c.right, item, ctx)];
      if (c.op === '=') return equal(a, b);
      if (c.op === '<>') return !equal(a, b); // true of a missing attribute, as on DynamoDB
      if (!a || !b) return false;
      const o = order(a, b);
      if (o === undefined) return false;
      return c.op === '<' ? o < 0 : c.op === '<=' ? o <= 0 : c.op === '>' ? o > 0 : o >= 0;
    }
    case 'between': {
      const [v, lo, hi] = [operandValue(c.of, item, ctx), operandValue(c.low, item, ctx), operandValue(c.high, item, ctx)];
      if (lo && hi && (order(lo, hi) ?? 0) > 0)
        throw validation('Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound');
      if (!v || !lo || !hi) return false;
      const [a, b] = [order(v, lo), order(v, hi)];
      return a !== undefined && b !== undefined && a >= 0 && b <= 0;
    }
    case 'in': {
      const v = operandValue(c.of, item, ctx);
      return c.list.some((o) => equal(v, operandValue(o, item, ctx)));
    }
    case 'function': {
      const [a, b] = c.args.map((o) => operandValue(o, item, ctx));
      switch (c.name) {
        case 'attribute_exists':
          return a !== undefined;
        case 'attribute_not_exists':
          return a === undefined;
        case 'attribute_type':
          return !!a && !!b?.S && typeOf(a) === b.S;
        case 'begins_with':
          if (!a || !b || typeOf(a) !== typeOf(b) || (typeOf(a) !== 'S' && typeOf(a) !== 'B')) return false;
          return bytes(a).subarray(0, bytes(b).length).equals(bytes(b));
        case 'contains': {
          if (!a || !b) return false;
          const t = typeOf(a);
          if (t === 'S') return !!b.S && a.S!.includes(b.S);
          if (t === 'L') return a.L!.some((x) => equal(x, b));
          if (t === 'SS' || t === 'NS' || t === 'BS') return setMembers(a).some((x) => equal(x, b));
          return false;
        }
      }
    }
  }
}

const wrongType = (what: string) => validation(`An operand in the update expression has an incorrect data type${what ? `: ${what}` : ''}`);

function setValueOf(v: SetValue, item: Item | undefined, ctx: Context): Av {
  switch (v.kind) {
    case 'value':
      return ctx.values[v.name];
    case 'path': {
      const found = read(item, v.path);
      if (!found) throw validation('The provided expression refers to an attribute that does not exist in the item');
      return found;
    }
    case 'size':
      throw validation('size() is not allowed in an update');
    case 'if_not_exists':
      return read(item, v.path) ?? setValueOf(v.otherwise, item, ctx);
    case 'list_append': {
      const [a, b] = [setValueOf(v.first, item, ctx), setValueOf(v.second, item, ctx)];
      if (!a.L || !b.L) throw wrongType('list_append takes two lists');
      return { L: [...a.L, ...b.L] };
    }
    case 'arithmetic': {
      const [a, b] = [setValueOf(v.left, item, ctx), setValueOf(v.right, item, ctx)];
      if (a.N === undefined || b.N === undefined) throw wrongType(`operator: ${v.op}`);
      return { N: addNumbers(a.N, v.op === '+' ? b.N : negate(b.N)) };
    }
  }
}

const negate = (n: string) => normalNumber(n.startsWith('-') ? n.slice(1) : `-${n}`);

function write(item: Item, path: Path, value: Av | undefined): void {
  let parent: Av = { M: item };
  for (let i = 0; i < path.length - 1; i++) {
    const s = path[i];
    const next: Av | undefined = typeof s === 'number' ? parent.L?.[s] : parent.M?.[s];
    if (!next) throw validation('The document path provided in the update expression is invalid for update');
    parent = next;
  }
  const last = path[path.length - 1];
  if (typeof last === 'number') {
    if (!parent.L) throw validation('The document path provided in the update expression is invalid for update');
    if (value === undefined) parent.L.splice(last, 1);
    else if (last >= parent.L.length) parent.L.push(value);
    else parent.L[last] = value;
  } else {
    if (!parent.M) throw validation('The document path provided in the update expression is invalid for update');
    if (value === undefined) delete parent.M[last];
    else parent.M[last] = value;
  }
}

// The item an update makes of `before` (a copy: `before` stays as it was). Every value is read
// from the item as it was before the update, as DynamoDB reads it.
export function applyUpdate(u: Update, before: Item, ctx: Context): Item {
  const after = structuredClone(before);
  const sets = u.set.map(({ path, value }) => ({ path, value: setValueOf(value, before, ctx) }));
  for (const { path, value } of sets) write(after, path, value);
  for (const path of u.remove) if (read(after, path)) write(after, path, undefined);
  for (const { path, value } of u.add) {
    const by = ctx.values[value];
    const was = read(before, path);
    if (by.N !== undefined) {
      if (was && was.N === undefined) throw wrongType('operator: ADD');
      write(after, path, { N: addNumbers(was?.N ?? '0', by.N) });
    } else if (by.SS || by.NS || by.BS) {
      if (was && typeOf(was) !== typeOf(by)) throw wrongType('operator: ADD');
      const members = was ? setMembers(was) : [];
      for (const m of setMembers(by)) if (!members.some((x) => equal(x, m))) members.push(m);
      write(after, path, toSet(typeOf(by), members));
    } else throw wrongType('ADD takes a number or a set');
  }
  for (const { path, value } of u.delete) {
    const by = ctx.values[value];
    const was = read(before, path);
    if (!(by.SS || by.NS || by.BS)) throw wrongType('DELETE takes a set');
    if (!was) continue;
    if (typeOf(was) !== typeOf(by)) throw wrongType('operator: DELETE');
    const left = setMembers(was).filter((m) => !setMembers(by).some((x) => equal(x, m)));
    write(after, path, left.length ? toSet(typeOf(by), left) : undefined);
  }
  return after;
}

const toSet = (type: string, members: Av[]): Av =>
  type === 'SS' ? { SS: members.map((m) => m.S!) } : type === 'NS' ? { NS: members.map((m) => m.N!) } : { BS: members.map((m) => m.B!) };

// The attributes a projection names, from an item.
export function project(item: Item, paths: Path[]): Item {
  const out: Item = {};
  for (const path of paths) {
    const v = read(item, path);
    if (!v) continue;
    if (path.length === 1) out[path[0] as string] = v;
    else throw validation('In memory, a projection names top-level attributes only');
  }
  return out;
}

// The paths a condition reads (for the key condition's shape, and a filter's keys).
export function pathsOf(c: Condition): Path[] {
  const ofOperand = (o: Operand) => (o.kind === 'value' ? [] : [o.path]);
  switch (c.kind) {
    case 'and':
    case 'or':
      return [...pathsOf(c.left), ...pathsOf(c.right)];
    case 'not':
      return pathsOf(c.of);
    case 'compare':
      return [...ofOperand(c.left), ...ofOperand(c.right)];
    case 'between':
      return [c.of, c.low, c.high].flatMap(ofOperand);
    case 'in':
      return [c.of, ...c.list].flatMap(ofOperand);
    case 'function':
      return c.args.flatMap(ofOperand);
  }
}

export { normalNumber, typeOf };
