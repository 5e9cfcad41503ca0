// The browser build's half of `make wasm-bench` (tools/wasm_bench.py): the
// same calls as examples/web_bench.rs, through target/web/archivist.js in
// Node, printed as one JSON object.
//
//   node tools/wasm_bench.mjs SITE probe BOOK FENS SECONDS
//   node tools/wasm_bench.mjs SITE bench
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [site, what, ...rest] = process.argv.slice(2);
const archivist = await import(pathToFileURL(path.resolve(site, 'archivist.js')).href);
await archivist.init(readFileSync(path.resolve(site, 'archivist.wasm')));

if (what === 'probe') {
  const [bookPath, fensPath, seconds] = rest;
  const book = archivist.openBook(readFileSync(bookPath));
  const fens = readFileSync(fensPath, 'utf8').split('\n').filter((l) => l.trim());
  const budget = Number(seconds) * 1000;
  // The JSON text (what native makes), then parsed into objects.
  const out = {};
  for (const [name, call] of [['text', (f) => book.probeText(f)], ['objects', (f) => book.probe(f)]]) {
    let probes = 0;
    let hits = 0;
    const start = performance.now();
    while (performance.now() - start < budget) {
      for (const fen of fens) if (call(fen) !== null) hits += 1;
      probes += fens.length;
    }
    out[name] = { probes, seconds: (performance.now() - start) / 1000, hits };
  }
  console.log(JSON.stringify(out));
} else if (what === 'bench') {
  const start = performance.now();
  const nodes = archivist.bench();
  console.log(JSON.stringify({ nodes, seconds: (performance.now() - start) / 1000 }));
} else {
  console.error('usage: wasm_bench.mjs SITE probe BOOK FENS SECONDS | SITE bench');
  process.exit(2);
}
