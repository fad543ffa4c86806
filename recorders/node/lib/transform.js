'use strict';
// Load-time instrumentation of one CommonJS source file for the licorice
// recorder. The output calls the runtime object `__lc` (globalThis.__licorice)
// exactly as lib/API.md describes:
//
//   o.k, o[k]            -> __lc.get(o, k, src)
//   o.k(a, b)            -> __lc.invoke(o, k, src, a, b), or, when an argument
//                           could run user code (so the read must come first),
//                           (_t = o, __lc.get(_t, k, src)).call(_t, a, b)
//   o.k = v              -> __lc.put(o, k, v, src)
//   o.k op= v            -> __lc.update(o, k, "op", v, src) when v cannot run
//                           user code, else (_t = o, __lc.put(_t, k, __lc.get(_t, k, src) op v, src))
//   o.k++, --o.k         -> __lc.incr(o, k, ±1, prefix, src)
//   delete o.k           -> __lc.del(o, k, src)
//   tracked variable x   -> __lc.rv(scope, "x", x, src) / x = __lc.wv(scope, "x", v, src)
//   {...}, [...], new C, function/class expressions -> __lc.alloc(value, site, type);
//   function and class declarations get an alloc statement (functions at the top
//   of their block, since they are hoisted; classes right after the declaration)
//   function bodies      -> const f = __lc.enter(name, src); try { body } finally { __lc.exit(f) }
//   await x              -> __lc.resume(f, await __lc.suspend(f, x))
//   a.x < b.y            -> __lc.bin("<", a', __lc.took(), b', __lc.took(), src)
//                           (comparisons and arithmetic whose operands are both tracked reads)
//   if (o.k), !o.k, o.k && y, o.k == null, x ? .. : .. (a tracked read tested
//                           for truthiness or against null/undefined, in any test
//                           but that of an if whose branch throws: an assertion)
//                        -> __lc.guard(read', src)
//
// A variable is tracked when it is declared with var/let or is a parameter, is
// reassigned after its declaration, and is module-level or used from a nested
// function. `src` is "relPath:line:col" (1-based) of the original code: for
// member accesses the position of the property, for variables the identifier.
// Lines are retained; a marker comment keeps the transform from running twice.
//
// Deliberately left uninstrumented (a missed record, never a changed program):
// super.x and private #x accesses; the links of optional chains (a?.b, a?.())
// after the chain's start; logical assignments (&&=, ||=, ??=); delete of a
// non-member; destructuring targets (their defaults and computed keys are
// instrumented); for-in/of heads; parameter lists (defaults included) and catch
// parameters; writes of anonymous functions/classes in name-inferring positions
// (wrapping would change fn.name; declarations get an alloc statement after
// them); `var x;` without initializer; in class field initializers, which get
// no temporaries, calls with impure arguments and x++ on tracked variables.
// ES modules, files that use `with` or the name `__lc`, and files mentioning
// `__licorice` (instrumented ones, the recorder's own) are returned unchanged;
// files with a direct eval() get no variable tracking.
// Known differences: Function.prototype.toString shows the transformed source;
// put/update/del run with the runtime's strictness, not the caller's; an await
// whose promise rejects calls suspend but not resume.

const babel = require('@babel/core');
const t = babel.types;

const MARKER = '/*licorice:instrumented*/';
const BIN_OPS = new Set(['<', '<=', '>', '>=', '==', '!=', '===', '!==', '+', '-', '*', '/', '%', '**', '<<', '>>', '>>>', '&', '|', '^']);
const LOGICAL_ASSIGN = new Set(['&&=', '||=', '??=']);
const EQ_OPS = new Set(['==', '!=', '===', '!==']);
// isNullish: null, undefined or void 0, as written.
// throws: a statement that throws, or a block that ends by throwing.
const throws = (n) => n.type === 'ThrowStatement' ||
  (n.type === 'BlockStatement' && n.body.length > 0 && n.body[n.body.length - 1].type === 'ThrowStatement');
const isNullish = (n) => n.type === 'NullLiteral' || (n.type === 'Identifier' && n.name === 'undefined') ||
  (n.type === 'UnaryExpression' && n.operator === 'void' && n.argument.type === 'NumericLiteral');
const TRACKED_KINDS = new Set(['var', 'let', 'param']);

const id = (name) => t.identifier(name);
const str = (s) => t.stringLiteral(s);
const seq = (exprs) => t.sequenceExpression(exprs);
const set = (name, value) => t.assignmentExpression('=', id(name), value);
const lc = (fn, args) => t.callExpression(t.memberExpression(id('__lc'), id(fn)), args);
const isAnonFn = (n) => !!n && (n.type === 'ArrowFunctionExpression' ||
  ((n.type === 'FunctionExpression' || n.type === 'ClassExpression') && !n.id));
// A plain member access: one the runtime can perform for us.
const plain = (m) => m.type === 'MemberExpression' && m.object.type !== 'Super' && m.property.type !== 'PrivateName';

// Whether evaluating n can run no user code (so it may move before a read).
function isPure(n) {
  switch (n.type) {
    case 'Identifier': case 'ThisExpression': case 'StringLiteral': case 'NumericLiteral':
    case 'BooleanLiteral': case 'NullLiteral': case 'BigIntLiteral': case 'RegExpLiteral':
    case 'FunctionExpression': case 'ArrowFunctionExpression':
      return true;
    case 'TemplateLiteral': return n.expressions.length === 0;
    case 'UnaryExpression': return ['typeof', 'void', '!'].includes(n.operator) && isPure(n.argument);
    case 'ArrayExpression': return n.elements.every((e) => e === null || isPure(e));
    case 'ObjectExpression':
      return n.properties.every((p) => !p.computed &&
        (p.type === 'ObjectMethod' || (p.type === 'ObjectProperty' && isPure(p.value))));
    default: return false;
  }
}

// The static name of a property key, or null.
function keyName(key, computed) {
  if (!computed && key.type === 'Identifier') return key.name;
  if (key.type === 'StringLiteral') return key.value;
  if (key.type === 'NumericLiteral') return String(key.value);
  if (key.type === 'PrivateName') return '#' + key.id.name;
  return null;
}

// "a.b.c" for a chain of plain names, else the last property name, else null.
function memberName(n) {
  if (n.type === 'Identifier') return n.name;
  if (n.type === 'ThisExpression') return 'this';
  if (n.type !== 'MemberExpression') return null;
  const k = keyName(n.property, n.computed);
  if (k === null) return null;
  const o = memberName(n.object);
  return o === null ? k : o + '.' + k;
}

// Pass 1: Babel's scope information decides which variables are tracked.
function analyze(path, prefix) {
  let skip = null;
  let directEval = false;
  path.traverse({
    WithStatement() { skip = 'uses with'; },
    Identifier(p) { if (p.node.name === '__lc') skip = 'uses the name __lc'; },
    CallExpression(p) {
      if (t.isIdentifier(p.node.callee, { name: 'eval' }) && !p.scope.hasBinding('eval', true)) directEval = true;
    },
  });
  if (path.node.sourceType === 'module') skip = 'an ES module';
  const info = { skip, refs: new Map(), writes: new Map(), tokens: new Map(), params: new Map() };
  if (skip || directEval) return info;
  const seen = new Set();
  const consider = (b) => {
    if (!TRACKED_KINDS.has(b.kind) || b.constantViolations.length === 0) return;
    const fnScope = b.scope.getFunctionParent(); // null: module-level
    let owner = null;
    if (fnScope) {
      if (!fnScope.path.isFunction()) return; // class static blocks
      const uses = b.referencePaths.concat(b.constantViolations);
      if (!uses.some((p) => p.scope.getFunctionParent() !== fnScope)) return; // not captured
      owner = fnScope.path.node;
      if (!info.tokens.has(owner)) info.tokens.set(owner, `${prefix}s${info.tokens.size}`);
    }
    const v = { name: b.identifier.name, owner };
    for (const r of b.referencePaths) if (r.node.type === 'Identifier') info.refs.set(r.node, v);
    for (const c of [b.path, ...b.constantViolations]) {
      const n = c.node;
      const target = n.type === 'VariableDeclarator' ? n.id : n.type === 'AssignmentExpression' ? n.left
        : n.type === 'UpdateExpression' ? n.argument : null;
      if (target && target.type === 'Identifier') info.writes.set(target, v);
    }
    if (b.kind === 'param') {
      if (!info.params.has(owner)) info.params.set(owner, []);
      info.params.get(owner).push(b.identifier);
    }
  };
  const visit = (scope) => {
    if (seen.has(scope)) return;
    seen.add(scope);
    for (const name of Object.keys(scope.bindings)) consider(scope.bindings[name]);
  };
  visit(path.scope);
  path.traverse({ Scopable(p) { visit(p.scope); } });
  return info;
}

// Pass 2: a recursive rewrite of the original tree. Every handler rewrites the
// children of an original node and returns its replacement; generated nodes
// are never visited again. A context `c` is the function (or program, static
// block, class field) being rewritten: its frame variable, and its temporaries
// (null where none may be declared).
class Rewriter {
  constructor(info, relPath, prefix) {
    Object.assign(this, info);
    this.rel = relPath;
    this.P = prefix;
    this.ntemps = 0;
    this.asserting = 0; // > 0: inside the test of an if that throws (no guards)
  }

  loc(n) { return `${this.rel}:${n.loc.start.line}:${n.loc.start.column + 1}`; }
  src(n) { return str(this.loc(n)); }
  temp(c) {
    if (!c.temps) return null;
    const name = `${this.P}t${this.ntemps++}`;
    c.temps.push(name);
    return name;
  }
  token(v) { return id(v.owner ? this.tokens.get(v.owner) : this.P + 'm'); }
  rv(v, at) { return lc('rv', [this.token(v), str(v.name), id(v.name), this.src(at)]); }
  wv(v, value, at) { return lc('wv', [this.token(v), str(v.name), value, this.src(at)]); }
  alloc(value, at, type) { return lc('alloc', [value, this.src(at), str(type)]); }
  allocStmt(name, at) { return t.expressionStatement(this.alloc(id(name), at, 'Function')); }
  varDecl(names) { return t.variableDeclaration('var', names.map((n) => t.variableDeclarator(id(n)))); }

  program(node) {
    const c = { frame: null, temps: [] };
    const body = this.list(node.body, c, true);
    const head = [
      t.variableDeclaration('var', [t.variableDeclarator(id('__lc'), t.memberExpression(id('globalThis'), id('__licorice')))]),
      t.variableDeclaration('var', [t.variableDeclarator(id(this.P + 'm'), lc('moduleScope', [str(this.rel)]))]),
    ];
    if (c.temps.length) head.push(this.varDecl(c.temps));
    node.body = head.concat(body);
  }

  // A statement list; `hoist`: function declarations here are hoisted to its top.
  list(stmts, c, hoist) {
    const pre = [];
    const out = [];
    for (const s of stmts) {
      if (s.type === 'FunctionDeclaration' && hoist) pre.push(this.allocStmt(s.id.name, s));
      // Anonymous functions named by a declaration: allocated right after it.
      const named = s.type === 'VariableDeclaration'
        ? s.declarations.filter((d) => d.id.type === 'Identifier' && isAnonFn(d.init)).map((d) => [d.id.name, d.init]) : [];
      out.push(this.stmt(s, c));
      if (s.type === 'ClassDeclaration') out.push(this.allocStmt(s.id.name, s));
      for (const [name, init] of named) out.push(this.allocStmt(name, init));
    }
    return pre.concat(out);
  }

  stmt(n, c) {
    switch (n.type) {
      case 'ExpressionStatement': n.expression = this.expr(n.expression, c, null, false, true); break;
      case 'BlockStatement': n.body = this.list(n.body, c, true); break;
      case 'ReturnStatement': case 'ThrowStatement': if (n.argument) n.argument = this.expr(n.argument, c); break;
      case 'IfStatement': {
        // if (!x) throw ...: an assertion, not code that copes with both.
        const asserts = throws(n.consequent) || (n.alternate !== null && throws(n.alternate));
        if (asserts) this.asserting++;
        n.test = this.test(n.test, c);
        if (asserts) this.asserting--;
        n.consequent = this.stmt(n.consequent, c);
        if (n.alternate) n.alternate = this.stmt(n.alternate, c);
        break;
      }
      case 'LabeledStatement': n.body = this.stmt(n.body, c); break;
      case 'SwitchStatement':
        n.discriminant = this.expr(n.discriminant, c);
        for (const k of n.cases) {
          if (k.test) k.test = this.expr(k.test, c);
          k.consequent = this.list(k.consequent, c, false);
        }
        break;
      case 'TryStatement':
        this.stmt(n.block, c);
        if (n.handler) this.stmt(n.handler.body, c);
        if (n.finalizer) this.stmt(n.finalizer, c);
        break;
      case 'WhileStatement': case 'DoWhileStatement':
        n.test = this.test(n.test, c);
        n.body = this.stmt(n.body, c);
        break;
      case 'ForStatement':
        if (n.init) n.init = n.init.type === 'VariableDeclaration' ? this.stmt(n.init, c) : this.expr(n.init, c, null, false, true);
        if (n.test) n.test = this.test(n.test, c);
        if (n.update) n.update = this.expr(n.update, c, null, false, true);
        n.body = this.stmt(n.body, c);
        break;
      case 'ForInStatement': case 'ForOfStatement':
        if (n.left.type !== 'VariableDeclaration') n.left = this.pat(n.left, c);
        n.right = this.expr(n.right, c);
        n.body = this.stmt(n.body, c);
        break;
      case 'VariableDeclaration':
        for (const d of n.declarations) this.declarator(d, n.kind, c);
        break;
      case 'FunctionDeclaration': this.fn(n, n.id.name); break;
      case 'ClassDeclaration': this.cls(n, c, n.id.name); break;
      default: break; // empty, debugger, break, continue
    }
    return n;
  }

  declarator(d, kind, c) {
    const w = d.id.type === 'Identifier' ? this.writes.get(d.id) : undefined;
    if (d.id.type !== 'Identifier') d.id = this.pat(d.id, c);
    if (d.init) {
      const anon = isAnonFn(d.init);
      d.init = this.expr(d.init, c, d.id.name || null, d.id.type === 'Identifier');
      if (w && !anon) d.init = this.wv(w, d.init, d.id);
    } else if (w && kind === 'let') {
      d.init = this.wv(w, id('undefined'), d.id);
    }
  }

  // An assignment target (not read): its sub-expressions are instrumented.
  pat(n, c) {
    switch (n.type) {
      case 'MemberExpression': return this.target(n, c);
      case 'ObjectPattern':
        for (const p of n.properties) {
          if (p.type === 'RestElement') { p.argument = this.pat(p.argument, c); continue; }
          if (p.computed) p.key = this.expr(p.key, c);
          p.value = this.pat(p.value, c);
        }
        return n;
      case 'ArrayPattern': n.elements = n.elements.map((e) => e && this.pat(e, c)); return n;
      case 'RestElement': n.argument = this.pat(n.argument, c); return n;
      case 'AssignmentPattern': {
        const named = n.left.type === 'Identifier';
        n.left = this.pat(n.left, c);
        n.right = this.expr(n.right, c, named ? n.left.name : null, named);
        return n;
      }
      default: return n;
    }
  }

  // A member expression kept as such (callee, target, super/private access).
  target(m, c) {
    if (m.object.type !== 'Super') m.object = this.expr(m.object, c);
    if (m.computed) m.property = this.expr(m.property, c);
    return m;
  }

  key(m, c) { return m.computed ? this.expr(m.property, c) : str(m.property.name); }

  isRead(n) { return plain(n) || (n.type === 'Identifier' && this.refs.has(n)); }

  // A test: an expression whose truthiness decides what runs. A tracked read
  // tested directly (for truthiness, negated, or compared with null or
  // undefined) is guarded: the code copes with both outcomes.
  test(n, c) {
    if (this.isRead(n)) {
      if (this.asserting > 0) return this.expr(n, c);
      return lc('guard', [this.expr(n, c), this.src(n.type === 'MemberExpression' ? n.property : n)]);
    }
    switch (n.type) {
      case 'UnaryExpression':
        if (n.operator !== '!') break;
        n.argument = this.test(n.argument, c);
        return n;
      case 'LogicalExpression':
        n.left = this.test(n.left, c);
        n.right = this.test(n.right, c);
        return n;
      case 'BinaryExpression':
        if (!EQ_OPS.has(n.operator)) break;
        if (isNullish(n.right) && this.isRead(n.left)) {
          n.left = this.test(n.left, c);
          return n;
        }
        if (isNullish(n.left) && this.isRead(n.right)) {
          n.right = this.test(n.right, c);
          return n;
        }
        if (!isNullish(n.left) && !isNullish(n.right)) break;
        n.left = this.expr(n.left, c);
        n.right = this.expr(n.right, c);
        return n;
    }
    return this.expr(n, c);
  }

  // hint: a name for an anonymous function here; infers: JS names it (so don't wrap it);
  // unused: the value is discarded.
  expr(n, c, hint = null, infers = false, unused = false) {
    switch (n.type) {
      case 'Identifier': { const v = this.refs.get(n); return v ? this.rv(v, n) : n; }
      case 'MemberExpression':
        if (!plain(n)) return this.target(n, c);
        return lc('get', [this.expr(n.object, c), this.key(n, c), this.src(n.property)]);
      case 'OptionalMemberExpression':
        n.object = this.expr(n.object, c);
        if (n.computed) n.property = this.expr(n.property, c);
        return n;
      case 'OptionalCallExpression':
        n.callee = n.callee.type === 'MemberExpression' ? this.target(n.callee, c) : this.expr(n.callee, c);
        n.arguments = n.arguments.map((a) => this.expr(a, c));
        return n;
      case 'CallExpression': return this.call(n, c);
      case 'NewExpression': {
        const type = n.callee.type === 'Identifier' ? n.callee.name
          : (n.callee.type === 'MemberExpression' && keyName(n.callee.property, n.callee.computed)) || 'Object';
        n.callee = this.expr(n.callee, c);
        n.arguments = n.arguments.map((a) => this.expr(a, c));
        return this.alloc(n, n, type);
      }
      case 'AssignmentExpression': return this.assign(n, c);
      case 'UpdateExpression': return this.update(n, c, unused);
      case 'UnaryExpression':
        if (n.operator === '!') return this.test(n, c);
        if (n.operator === 'delete') {
          const a = n.argument;
          if (plain(a)) return lc('del', [this.expr(a.object, c), this.key(a, c), this.src(a.property)]);
          if (a.type === 'Identifier') return n;
          n.argument = a.type === 'MemberExpression' ? this.target(a, c) : this.expr(a, c);
          return n;
        }
        n.argument = this.expr(n.argument, c);
        return n;
      case 'BinaryExpression':
        if (n.left.type === 'PrivateName') { n.right = this.expr(n.right, c); return n; }
        if (EQ_OPS.has(n.operator) && (isNullish(n.left) || isNullish(n.right))) return this.test(n, c);
        if (BIN_OPS.has(n.operator) && this.isRead(n.left) && this.isRead(n.right)) {
          const at = this.src(n);
          return lc('bin', [str(n.operator), this.expr(n.left, c), lc('took', []), this.expr(n.right, c), lc('took', []), at]);
        }
        n.left = this.expr(n.left, c);
        n.right = this.expr(n.right, c);
        return n;
      case 'LogicalExpression':
        n.left = this.test(n.left, c); // its truthiness (or nullishness) decides
        n.right = this.expr(n.right, c);
        return n;
      case 'ConditionalExpression':
        n.test = this.test(n.test, c);
        n.consequent = this.expr(n.consequent, c);
        n.alternate = this.expr(n.alternate, c);
        return n;
      case 'SequenceExpression':
        n.expressions = n.expressions.map((e, i) => this.expr(e, c, null, false, unused || i < n.expressions.length - 1));
        return n;
      case 'AwaitExpression':
        n.argument = this.expr(n.argument, c);
        if (!c.frame) return n;
        return lc('resume', [id(c.frame), t.awaitExpression(lc('suspend', [id(c.frame), n.argument]))]);
      case 'YieldExpression': case 'SpreadElement':
        if (n.argument) n.argument = this.expr(n.argument, c);
        return n;
      case 'TemplateLiteral': n.expressions = n.expressions.map((e) => this.expr(e, c)); return n;
      case 'TaggedTemplateExpression':
        n.tag = n.tag.type === 'MemberExpression' ? this.target(n.tag, c) : this.expr(n.tag, c);
        n.quasi = this.expr(n.quasi, c);
        return n;
      case 'ArrayExpression':
        n.elements = n.elements.map((e) => e && this.expr(e, c));
        return this.alloc(n, n, 'Array');
      case 'ObjectExpression': return this.alloc(this.object(n, c, hint), n, 'Object');
      case 'FunctionExpression': case 'ArrowFunctionExpression': case 'ClassExpression': {
        const anon = isAnonFn(n);
        const name = n.id ? n.id.name : hint;
        if (n.type === 'ClassExpression') this.cls(n, c, name); else this.fn(n, name);
        return anon && infers ? n : this.alloc(n, n, 'Function');
      }
      default: return n; // literals, this, super, import, new.target, ...
    }
  }

  call(n, c) {
    const callee = n.callee;
    if (plain(callee)) {
      const at = this.src(callee.property);
      const pure = n.arguments.every(isPure);
      const o = this.expr(callee.object, c);
      const k = this.key(callee, c);
      const args = n.arguments.map((a) => this.expr(a, c));
      if (pure) return lc('invoke', [o, k, at, ...args]);
      // The method must be read before the arguments run: get it, then .call it.
      const tmp = this.temp(c);
      if (tmp) {
        const fn = seq([set(tmp, o), lc('get', [id(tmp), k, at])]);
        return t.callExpression(t.memberExpression(fn, id('call')), [id(tmp), ...args]);
      }
      callee.object = o;
      if (callee.computed) callee.property = k;
      n.arguments = args;
      return n;
    }
    if (callee.type === 'MemberExpression') n.callee = this.target(callee, c);
    else if (callee.type !== 'Super' && callee.type !== 'Import') n.callee = this.expr(callee, c);
    n.arguments = n.arguments.map((a) => this.expr(a, c));
    return n;
  }

  assign(n, c) {
    const { left, operator: op } = n;
    const logical = LOGICAL_ASSIGN.has(op);
    if (left.type === 'Identifier') {
      const w = this.writes.get(left);
      const anon = isAnonFn(n.right);
      n.right = this.expr(n.right, c, left.name, op === '=' || logical);
      if (!w || logical || (op === '=' && anon)) return n;
      n.right = this.wv(w, op === '=' ? n.right : t.binaryExpression(op.slice(0, -1), this.rv(w, left), n.right), left);
      n.operator = '=';
      return n;
    }
    if (plain(left) && !logical) {
      const at = this.src(left.property);
      const pure = isPure(n.right);
      const o = this.expr(left.object, c);
      const k = this.key(left, c);
      const v = this.expr(n.right, c, memberName(left));
      if (op === '=') return lc('put', [o, k, v, at]);
      const bop = op.slice(0, -1);
      if (pure) return lc('update', [o, k, str(bop), v, at]);
      // The old value must be read before v runs.
      const to = this.temp(c);
      if (!to) {
        left.object = o;
        if (left.computed) left.property = k;
        n.right = v;
        return n;
      }
      const parts = [set(to, o)];
      let kk = k;
      if (left.computed && !t.isStringLiteral(k) && !t.isNumericLiteral(k)) {
        const tk = this.temp(c);
        parts.push(set(tk, k));
        kk = id(tk);
      }
      const old = lc('get', [id(to), t.cloneNode(kk), at]);
      parts.push(lc('put', [id(to), kk, t.binaryExpression(bop, old, v), at]));
      return seq(parts);
    }
    if (left.type === 'MemberExpression') n.left = this.target(left, c);
    else if (left.type !== 'OptionalMemberExpression') n.left = this.pat(left, c);
    n.right = this.expr(n.right, c);
    return n;
  }

  update(n, c, unused) {
    const a = n.argument;
    if (plain(a)) {
      const delta = n.operator === '++' ? t.numericLiteral(1) : t.unaryExpression('-', t.numericLiteral(1));
      return lc('incr', [this.expr(a.object, c), this.key(a, c), delta, t.booleanLiteral(n.prefix), this.src(a.property)]);
    }
    if (a.type === 'MemberExpression') { n.argument = this.target(a, c); return n; }
    const w = a.type === 'Identifier' && this.writes.get(a);
    if (!w || !c.temps) return n;
    // (t = rv(x), ++t) is the new value of ++x; for x++ keep the old (numeric) one.
    const t1 = this.temp(c);
    const read = set(t1, this.rv(w, a));
    if (n.prefix || unused) {
      return t.assignmentExpression('=', id(a.name), this.wv(w, seq([read, t.updateExpression(n.operator, id(t1), true)]), a));
    }
    const t2 = this.temp(c);
    return seq([read, set(t2, t.updateExpression(n.operator, id(t1), false)),
      t.assignmentExpression('=', id(a.name), this.wv(w, id(t1), a)), id(t2)]);
  }

  object(n, c, hint) {
    const qualify = (k) => (hint ? hint + '.' : '') + k;
    for (const p of n.properties) {
      if (p.type === 'SpreadElement') { p.argument = this.expr(p.argument, c); continue; }
      const k = keyName(p.key, p.computed);
      if (p.computed) p.key = this.expr(p.key, c);
      if (p.type === 'ObjectMethod') {
        const kind = p.kind === 'get' || p.kind === 'set' ? p.kind + ' ' : '';
        this.fn(p, k === null ? null : qualify(kind + k));
        continue;
      }
      const v = this.expr(p.value, c, k === null ? null : qualify(k), true);
      if (v !== p.value) p.shorthand = false;
      p.value = v;
    }
    return n;
  }

  cls(n, c, name) {
    const cname = (n.id && n.id.name) || name || this.loc(n);
    if (n.superClass) n.superClass = this.expr(n.superClass, c);
    for (const m of n.body.body) {
      if (m.type === 'StaticBlock') {
        const sc = { frame: null, temps: [] };
        m.body = this.list(m.body, sc, true);
        if (sc.temps.length) m.body.unshift(this.varDecl(sc.temps));
        continue;
      }
      if (!m.key) continue;
      const k = keyName(m.key, m.computed);
      if (m.computed) m.key = this.expr(m.key, c);
      const kind = m.kind === 'get' || m.kind === 'set' ? m.kind + ' ' : '';
      const label = k === null ? null : `${cname}.${kind}${k}`;
      if (m.type === 'ClassMethod' || m.type === 'ClassPrivateMethod') this.fn(m, label);
      else if ((m.type === 'ClassProperty' || m.type === 'ClassPrivateProperty') && m.value) {
        m.value = this.expr(m.value, { frame: null, temps: null }, label, true);
      }
    }
    return n;
  }

  // Wraps a function's body; its parameters are left as they are.
  fn(n, name) {
    const asserting = this.asserting;
    this.asserting = 0; // a function in an assertion's test has tests of its own
    try {
      this.fnBody(n, name);
    } finally {
      this.asserting = asserting;
    }
  }

  fnBody(n, name) {
    const frame = this.P + 'f';
    const c = { frame, temps: [] };
    const at = this.src(n);
    let stmts;
    if (n.body.type === 'BlockStatement') {
      stmts = this.list(n.body.body, c, true);
    } else {
      stmts = [t.returnStatement(this.expr(n.body, c))];
      n.body = t.blockStatement([]);
      n.expression = false;
    }
    const pro = [];
    const tok = this.tokens.get(n);
    if (tok) pro.push(t.variableDeclaration('const', [t.variableDeclarator(id(tok), lc('scope', [at]))]));
    for (const p of this.params.get(n) || []) {
      pro.push(t.expressionStatement(lc('wv', [id(tok), str(p.name), id(p.name), this.src(p)])));
    }
    if (c.temps.length) pro.push(this.varDecl(c.temps));
    n.body.body = [
      t.variableDeclaration('const', [t.variableDeclarator(id(frame), lc('enter', [str(name || this.loc(n)), t.cloneNode(at)]))]),
      t.tryStatement(t.blockStatement(pro.concat(stmts)), null, t.blockStatement([t.expressionStatement(lc('exit', [id(frame)]))])),
    ];
    return n;
  }
}

function plugin(api, options) {
  return {
    name: 'licorice',
    visitor: {
      Program(path, state) {
        const code = state.file.code;
        let prefix = '_lc';
        for (let i = 0; code.includes(prefix); i++) prefix = `_lc${i}_`;
        const info = analyze(path, prefix);
        state.file.metadata.licorice = { skipped: info.skip };
        if (!info.skip) new Rewriter(info, options.relPath || 'unknown.js', prefix).program(path.node);
        path.skip();
      },
    },
  };
}

// Instruments one file. Returns {code} (and {skipped: reason} when the file is
// returned unchanged); throws an Error naming the file and line on a syntax error.
function transform(code, { filename, relPath } = {}) {
  relPath = (relPath || filename || 'unknown.js').split('\\').join('/');
  if (code.includes(MARKER) || code.includes('__licorice')) return { code, skipped: 'already instrumented' };
  let out;
  try {
    out = babel.transformSync(code, {
      filename: filename || relPath,
      babelrc: false,
      configFile: false,
      browserslistConfigFile: false,
      sourceType: 'unambiguous',
      highlightCode: false,
      compact: false,
      retainLines: true,
      sourceMaps: false,
      parserOpts: { allowReturnOutsideFunction: true, allowNewTargetOutsideFunction: true },
      plugins: [[plugin, { relPath }]],
    });
  } catch (e) {
    if (!e.loc) throw e;
    const reason = String(e.message).split('\n')[0].replace(/^.*?: /, '');
    const err = new Error(`licorice: cannot parse ${filename || relPath}:${e.loc.line}:${e.loc.column + 1}: ${reason}`);
    err.cause = e;
    throw err;
  }
  const skipped = out.metadata.licorice && out.metadata.licorice.skipped;
  if (skipped) return { code, skipped };
  // The marker goes on the first line (after a #! line) without adding a line.
  const out2 = out.code;
  if (!out2.startsWith('#!')) return { code: MARKER + out2 };
  const nl = out2.indexOf('\n');
  return { code: nl < 0 ? out2 + '\n' + MARKER : out2.slice(0, nl + 1) + MARKER + out2.slice(nl + 1) };
}

module.exports = { transform, plugin, MARKER };
