// Custom properties (`--c: #fff`) and var() as a browser computes them: inherited down the
// tree, resolved where declared, cycles and missing names invalid unless a fallback is given.
// White text written `color: var(--c)` is white text.

const MAX_RESOLVED_LENGTH = 2_000;
const MAX_DEPTH = 8; // var() inside fallbacks inside var(): deeper is treated as invalid

export type CustomProperties = ReadonlyMap<string, string>;
export const NO_CUSTOM_PROPERTIES: CustomProperties = new Map();

/** The scope an element's children inherit: the parent's plus the element's own, resolved. */
export function scopeWith(parent: CustomProperties, own: ReadonlyMap<string, string>): CustomProperties {
  if (own.size === 0) return parent;
  const scope = new Map(parent);
  const resolving = new Set<string>();
  const resolved = new Map<string, string | null>();
  const resolve = (name: string): string | null => {
    if (resolved.has(name)) return resolved.get(name) ?? null;
    const raw = own.get(name);
    if (raw === undefined) return parent.get(name) ?? null;
    if (resolving.has(name)) return null; // a cycle: every member is invalid
    resolving.add(name);
    const value = substitute(raw, resolve);
    resolving.delete(name);
    resolved.set(name, value);
    return value;
  };
  for (const name of own.keys()) {
    const value = resolve(name);
    if (value === null || value.trim().toLowerCase() === "initial") scope.delete(name);
    else scope.set(name, value);
  }
  return scope;
}

/** `value` with every var() replaced; null when one cannot be (invalid at computed-value time). */
export function resolveVars(value: string, scope: CustomProperties): string | null {
  return substitute(value, (name) => scope.get(name) ?? null);
}

function substitute(value: string, lookup: (name: string) => string | null, depth = 0): string | null {
  if (depth > MAX_DEPTH) return null;
  let out = "";
  let i = 0;
  for (;;) {
    const start = indexOfVar(value, i);
    if (start < 0) break;
    out += value.slice(i, start);
    const open = start + 4;
    const close = matchingParen(value, open);
    if (close < 0) return null;
    const inner = value.slice(open, close);
    const comma = topLevelComma(inner);
    const name = (comma < 0 ? inner : inner.slice(0, comma)).trim();
    let replacement = name.startsWith("--") ? lookup(name) : null;
    if (replacement === null && comma >= 0) replacement = substitute(inner.slice(comma + 1), lookup, depth + 1);
    if (replacement === null) return null;
    out += replacement;
    if (out.length > MAX_RESOLVED_LENGTH) return null;
    i = close + 1;
  }
  out += value.slice(i);
  return out.length > MAX_RESOLVED_LENGTH ? null : out;
}

function indexOfVar(value: string, from: number): number {
  for (let i = value.indexOf("(", from); i >= 0; i = value.indexOf("(", i + 1)) {
    if (i >= 3 && value.slice(i - 3, i).toLowerCase() === "var") {
      const before = value.charCodeAt(i - 4);
      // not the tail of a longer function name such as `somevar(`
      if (i === 3 || !/[\w-]/.test(String.fromCharCode(before))) return i - 3;
    }
  }
  return -1;
}

function matchingParen(value: string, open: number): number {
  let depth = 1;
  for (let i = open; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 40) depth++;
    else if (c === 41 && --depth === 0) return i;
  }
  return -1;
}

function topLevelComma(value: string): number {
  let depth = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 40) depth++;
    else if (c === 41) depth--;
    else if (c === 44 && depth === 0) return i;
  }
  return -1;
}
