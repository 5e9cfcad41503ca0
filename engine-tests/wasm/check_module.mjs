// The browser build's module (target/web/archivist.js) under Node, for
// engine-tests/test_wasm_module.py, which compares every answer with the
// native binary's.
//
//   node check_module.mjs JOBS [START]
//
// JOBS holds one JSON job a line; the jobs from index START on run in
// order, and each prints one JSON line `{id, ms, ...}` as soon as it is
// done, so the caller can give every job its own time budget, and start
// again after the job that hung or trapped. The first line, `{id: "_init"}`,
// reports how the module behaved before and during `init`. A trap
// (WebAssembly.RuntimeError) prints `{id, trap}` and exits with status 3:
// the instance cannot be trusted after one.
//
// Jobs (`book`, `out` are file paths):
//   {op: "probe", book, fens}        -> {format, answers: [object | null | {error}]}
//   {op: "open", book, fen}          -> {ok: true, format, probe} | {ok: false, error, name}
//   {op: "convert", book, to, out}   -> {ok: true, report, size} (bytes written to out) | {ok: false, error, name}
//   {op: "moves", fens}              -> {answers: [[{uci, san, fen}] | {error}]}
//   {op: "search", fen, limit}       -> {result, infos} | {error, name}
//   {op: "bench"}                    -> {nodes}
//   {op: "init", kind}               -> a fresh copy of the module loaded from
//                                       kind: bytes | buffer | url | string | default | missing
//   {op: "misuse"}                   -> the errors of bad calls
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const web = path.resolve(process.env.ARCHIVIST_WEB ?? path.join(here, '..', '..', 'target', 'web'));
const moduleUrl = pathToFileURL(path.join(web, 'archivist.js')).href;
const wasmPath = path.join(web, 'archivist.wasm');
const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

const [jobsFile, startArg] = process.argv.slice(2);
const jobs = readFileSync(jobsFile, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
const start = Number(startArg ?? 0);

function emit(record) {
  // Synchronous for pipes and files on Linux: nothing is lost at exit.
  process.stdout.write(`${JSON.stringify(record)}\n`);
}

function failure(e) {
  if (e instanceof WebAssembly.RuntimeError) throw e;
  return { error: e?.message ?? String(e), name: e?.name ?? typeof e };
}

const archivist = await import(moduleUrl);

// Before and during init: calls throw, a second init is the same promise.
{
  const t0 = performance.now();
  let before = null;
  try {
    archivist.moves(START_FEN);
  } catch (e) {
    before = { error: e.message, name: e.name };
  }
  const first = archivist.init();
  const second = archivist.init();
  let during = null;
  try {
    archivist.moves(START_FEN);
  } catch (e) {
    during = { error: e.message, name: e.name };
  }
  await first;
  const again = archivist.init();
  emit({ id: '_init', before, during, same: first === second && first === again, ms: performance.now() - t0 });
}

function probe(job) {
  const book = archivist.openBook(readFileSync(job.book));
  const answers = job.fens.map((fen) => {
    try {
      return book.probe(fen);
    } catch (e) {
      return failure(e);
    }
  });
  const format = book.format;
  book.close();
  return { format, answers };
}

function open(job) {
  let book;
  try {
    book = archivist.openBook(readFileSync(job.book));
  } catch (e) {
    return { ok: false, ...failure(e) };
  }
  let answer;
  try {
    answer = book.probe(job.fen);
  } catch (e) {
    answer = failure(e);
  }
  const format = book.format;
  book.close();
  return { ok: true, format, probe: answer };
}

function convert(job) {
  try {
    const { bytes, report } = archivist.convert(readFileSync(job.book), job.to);
    writeFileSync(job.out, bytes);
    return { ok: true, report, size: bytes.length, type: Object.prototype.toString.call(bytes) };
  } catch (e) {
    return { ok: false, ...failure(e) };
  }
}

function moves(job) {
  return {
    answers: job.fens.map((fen) => {
      try {
        return archivist.moves(fen);
      } catch (e) {
        return failure(e);
      }
    }),
  };
}

function search(job) {
  const infos = [];
  try {
    const result = archivist.search(job.fen, job.limit, (info) => infos.push(info));
    return { result, infos };
  } catch (e) {
    return failure(e);
  }
}

/** A fresh copy of the module (its own instance), loaded from `kind`. */
async function init(job) {
  const fresh = await import(`${moduleUrl}?copy=${encodeURIComponent(job.id)}`);
  const bytes = readFileSync(wasmPath);
  const sources = {
    bytes: () => new Uint8Array(bytes),
    buffer: () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
    url: () => pathToFileURL(wasmPath),
    string: () => pathToFileURL(wasmPath).href,
    default: () => undefined,
    missing: () => pathToFileURL(path.join(web, 'no-such-module.wasm')).href,
  };
  const out = {};
  try {
    await fresh.init(sources[job.kind]());
    out.ok = true;
  } catch (e) {
    Object.assign(out, { ok: false, ...failure(e) });
    // A failed init may be tried again.
    await fresh.init(sources.bytes());
    out.retried = true;
  }
  out.moves = fresh.moves(START_FEN).length;
  return out;
}

/** Bad calls: each must throw an Error (not trap, not return). */
function misuse() {
  const attempts = {
    no_limit: () => archivist.search(START_FEN, {}),
    two_limits: () => archivist.search(START_FEN, { depth: 2, nodes: 100 }),
    unknown_limit: () => archivist.search(START_FEN, { time: 100 }),
    inherited_limit: () => archivist.search(START_FEN, { toString: 1 }),
    negative_limit: () => archivist.search(START_FEN, { depth: -1 }),
    bad_fen_search: () => archivist.search('not a fen', { depth: 2 }),
    bad_fen_moves: () => archivist.moves('8/8/8/8 w - -'),
    // Not ASCII: the string goes through TextEncoder's copy, not encodeInto.
    non_ascii_fen: () => archivist.moves('8/8/8/8/8/8/8/K6k w - - 0 1 é'),
    empty_fen_moves: () => archivist.moves(''),
    bad_to: () => archivist.convert(readFileSync(path.join(here, '..', 'data', 'sbob_golden.sbob')), 'pgn'),
    empty_book: () => archivist.openBook(new Uint8Array(0)),
    not_bytes: () => archivist.openBook('a string'),
    closed_book: () => {
      const book = archivist.openBook(readFileSync(path.join(here, '..', 'data', 'sbob_golden.sbob')));
      book.close();
      book.close();
      return book.probe(START_FEN);
    },
    info_throws: () => archivist.search(START_FEN, { depth: 3 }, () => {
      throw new Error('from onInfo');
    }),
  };
  const out = {};
  for (const [name, f] of Object.entries(attempts)) {
    try {
      out[name] = { returned: JSON.stringify(f()) ?? null };
    } catch (e) {
      out[name] = failure(e);
    }
  }
  // Still usable after all of them.
  out.after = archivist.moves(START_FEN).length;
  return out;
}

const ops = { probe, open, convert, moves, search, init, misuse, bench: () => ({ nodes: archivist.bench() }) };

for (let i = start; i < jobs.length; i++) {
  const job = jobs[i];
  const t0 = performance.now();
  try {
    const op = ops[job.op];
    if (!op) throw new Error(`unknown op ${job.op}`);
    const result = await op(job);
    emit({ id: job.id, ...result, ms: performance.now() - t0 });
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) {
      emit({ id: job.id, trap: e.message, stack: e.stack, ms: performance.now() - t0 });
      process.exit(3);
    }
    emit({ id: job.id, exception: e?.message ?? String(e), name: e?.name, stack: e?.stack, ms: performance.now() - t0 });
  }
}
