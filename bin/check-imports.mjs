#!/usr/bin/env node
// The import graph of src/ stays a DAG: no file imports itself back through others, no module
// (src/modules/<name>) reaches one that reaches it back, and src/platform imports no module.
// Type-only imports count too: a circle of types is still a circle a reader has to untangle.
// Run by `npm run check` and CI; prints each circle and exits 1.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const src = path.join(root, 'src');

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return walk(p);
    return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) ? [p] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|(?:^|\n)\s*import\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;
const files = walk(src);
const edges = new Map();
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const targets = new Set();
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3];
    const target = path.resolve(path.dirname(file), spec);
    if (target.startsWith(src) && !/\.test\.ts$/.test(target)) targets.add(target);
  }
  edges.set(file, [...targets]);
}

const rel = (f) => path.relative(src, f);
/** The unit a file belongs to: `platform`, `modules/<name>`, or the file itself (composition files at src/). */
const unitOf = (f) => {
  const parts = rel(f).split(path.sep);
  if (parts[0] === 'platform') return 'platform';
  if (parts[0] === 'modules') return parts.length > 2 ? `modules/${parts[1]}` : `modules/${parts[1].replace(/\.ts$/, '')}`;
  return parts.join('/');
};

/** Strongly connected components with more than one node (Tarjan). */
function circles(graph) {
  let index = 0;
  const stack = [];
  const on = new Set();
  const idx = new Map();
  const low = new Map();
  const out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc);
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

const problems = [];
for (const scc of circles(edges)) problems.push(`files import each other in a circle: ${scc.map(rel).sort().join(', ')}`);

const units = new Map();
for (const [file, targets] of edges) {
  const from = unitOf(file);
  if (!units.has(from)) units.set(from, new Set());
  for (const t of targets) {
    const to = unitOf(t);
    if (to !== from) units.get(from).add(to);
    if (from === 'platform' && to.startsWith('modules/')) problems.push(`platform imports a module: ${rel(file)} -> ${rel(t)}`);
    if (from.startsWith('modules/') && !to.startsWith('modules/') && to !== 'platform')
      problems.push(`a module imports a composition file: ${rel(file)} -> ${rel(t)}`);
  }
}
const unitGraph = new Map([...units].map(([k, v]) => [k, [...v]]));
for (const scc of circles(unitGraph)) {
  const detail = scc
    .flatMap((from) =>
      [...edges]
        .filter(([f]) => unitOf(f) === from)
        .flatMap(([f, ts]) =>
          ts.filter((t) => scc.includes(unitOf(t)) && unitOf(t) !== from).map((t) => `${rel(f)} -> ${rel(t)}`),
        ),
    )
    .sort();
  problems.push(`modules import each other in a circle: ${scc.sort().join(', ')}\n    ${detail.join('\n    ')}`);
}

if (problems.length) {
  console.error(`check-imports: ${problems.length} problem(s)\n- ${problems.join('\n- ')}`);
  process.exit(1);
}
console.log(`check-imports: ${files.length} files, ${unitGraph.size} units, no circles`);
