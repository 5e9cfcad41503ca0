// archivist.js: the browser build of the archivist chess engine, as an ES
// module that Node (20 and later) and browsers load alike. No dependencies,
// no bundler. It wraps the WebAssembly module's C-ABI exports (the table in
// web/src/lib.rs; their meaning in src/web.rs): every answer is the native
// program's (`book probe --json`, `book convert`, `bench`).
//
//   import * as archivist from './archivist.js';
//   await archivist.init();                 // fetches ./archivist.wasm
//   const book = archivist.openBook(bytes); // Uint8Array or ArrayBuffer
//   book.probe(fen);                        // an object, or null
//
// Calls are synchronous and run on the calling thread: a page runs
// `search` in a worker. Memory protocol: every (ptr, len) argument is a
// block from `arch_alloc(len)` that the call takes over; a call's text
// result (`arch_result_*`) and bytes (`arch_bytes_*`) are read before the
// next call, through a fresh view of `memory.buffer` (memory may grow
// during any call).

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

/** The instance's exports once `init` has resolved, else null. */
let wasm = null;
/** The pending or settled `init` promise (null before the first call, and again after a failed one). */
let loading = null;
/** Set when a call trapped: the instance's state can no longer be trusted. */
let trapped = null;
/** The current search's `onInfo` and the first error it threw. */
let infoSink = null;

function exports() {
  if (trapped) {
    throw new Error(`archivist: the module trapped earlier (${trapped}); load the page or module again`);
  }
  if (!wasm) throw new Error('archivist: call init() first');
  return wasm;
}

/** Runs `f(exports)`; a trap (a WebAssembly.RuntimeError) marks the instance unusable and is rethrown. */
function call(f) {
  const w = exports();
  try {
    return f(w);
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) trapped = e.message;
    throw e;
  }
}

function view(w, ptr, len) {
  return new Uint8Array(w.memory.buffer, ptr, len);
}

/** Copies `bytes` into a fresh block of the module's memory: [ptr, len]. */
function put(w, bytes) {
  const ptr = w.arch_alloc(bytes.length);
  // Read the buffer after the allocation: it may have grown memory.
  view(w, ptr, bytes.length).set(bytes);
  return [ptr, bytes.length];
}

function putString(w, text) {
  if (typeof text !== 'string') throw new TypeError(`archivist: expected a string, got ${typeof text}`);
  // ASCII (every FEN): encoded straight into the module's memory, one
  // byte a character; anything else through a copy.
  const n = text.length;
  const ptr = w.arch_alloc(n);
  const { read, written } = encoder.encodeInto(text, view(w, ptr, n));
  if (read === n && written === n) return [ptr, n];
  w.arch_free(ptr, n);
  return put(w, encoder.encode(text));
}

function asBytes(bytes) {
  if (bytes instanceof Uint8Array) return bytes;
  if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
  if (ArrayBuffer.isView(bytes)) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  throw new TypeError('archivist: expected a Uint8Array or an ArrayBuffer');
}

/** The last call's text result. */
function resultText(w) {
  return decoder.decode(view(w, w.arch_result_ptr(), w.arch_result_len()));
}

/** The last conversion's bytes, copied out of the module's memory. */
function resultBytes(w) {
  return view(w, w.arch_bytes_ptr(), w.arch_bytes_len()).slice();
}

/** The imports of module `archivist`: the clock and a search's iterations. */
function imports() {
  const clock = globalThis.performance ?? Date;
  return {
    archivist: {
      now: () => clock.now(),
      info: (ptr, len) => {
        const sink = infoSink;
        if (!sink || sink.error) return;
        try {
          sink.onInfo(JSON.parse(decoder.decode(view(wasm, ptr, len))));
        } catch (e) {
          // Thrown through the module it would abandon the search's memory:
          // kept, and rethrown once the search has returned.
          sink.error = { e };
        }
      },
    },
  };
}

/** The module's bytes or response from what `init` was given. */
async function source(src) {
  if (src instanceof Uint8Array || src instanceof ArrayBuffer) return src;
  let url;
  if (src === undefined) url = new URL('archivist.wasm', import.meta.url);
  else if (src instanceof URL) url = src;
  else if (typeof src === 'string') url = new URL(src, globalThis.document?.baseURI ?? import.meta.url);
  else throw new TypeError('archivist: init() takes a Uint8Array, an ArrayBuffer, a URL or a string URL');
  if (url.protocol === 'file:') {
    // Node: fetch() cannot read files. The import runs only here, so a
    // browser never asks for it.
    const fs = await import('node:fs/promises');
    return fs.readFile(url);
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`archivist: fetching ${url} failed: ${response.status} ${response.statusText}`);
  return response;
}

async function instantiate(src) {
  const from = await source(src);
  let instance;
  if (typeof Response !== 'undefined' && from instanceof Response) {
    const streaming = typeof WebAssembly.instantiateStreaming === 'function'
      && (from.headers.get('content-type') ?? '').startsWith('application/wasm');
    instance = streaming
      ? (await WebAssembly.instantiateStreaming(from, imports())).instance
      : (await WebAssembly.instantiate(await from.arrayBuffer(), imports())).instance;
  } else {
    instance = (await WebAssembly.instantiate(from, imports())).instance;
  }
  wasm = instance.exports;
}

/**
 * Loads the WebAssembly module. Every other call throws
 * `Error("archivist: call init() first")` until the returned promise resolves.
 * A second call does nothing and returns the same promise (after a failed
 * load, a new call tries again).
 *
 * @param {Uint8Array|ArrayBuffer|URL|string} [src] the module's bytes or
 *   address; by default `archivist.wasm` beside this file. A string is
 *   resolved against the page's address (in Node: against this module's).
 *   `file:` addresses are read with `node:fs/promises`.
 * @returns {Promise<void>}
 */
export function init(src) {
  if (!loading) {
    loading = instantiate(src).catch((e) => {
      loading = null;
      throw e;
    });
  }
  return loading;
}

/** Closes the books nobody holds any more (where the host can tell). */
const unheld = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((handle) => {
    if (wasm && !trapped) wasm.arch_book_close(handle);
  })
  : null;

/** Only {@link openBook} makes books. */
const opening = Symbol('openBook');

/** An opened book; made by {@link openBook}. */
export class Book {
  #handle;
  #format;

  /** @hideconstructor */
  constructor(token, handle, format) {
    if (token !== opening) throw new TypeError('archivist: books come from openBook()');
    this.#handle = handle;
    this.#format = format;
    unheld?.register(this, handle, this);
  }

  /**
   * The book's format: `polyglot`, `yacb`, `abk`, `sbob`, `json` or
   * `legacy-json` (the old `openingBook.json`).
   * @type {string}
   */
  get format() {
    return this.#format;
  }

  /**
   * What the book says about a position: for Polyglot, YACB and ABK books
   * `book probe --json`'s object (`moves: []` where the book has nothing);
   * for SBOB and JSON books the position's entry `{fen, moves}` as
   * `book convert --to json` writes it, or null where the book lacks it.
   *
   * @param {string} fen
   * @returns {object|null}
   * @throws {Error} a bad FEN (the native message), or a closed book
   */
  probe(fen) {
    const text = this.probeText(fen);
    return text === null ? null : JSON.parse(text);
  }

  /**
   * {@link Book#probe}'s answer as the JSON text the native program
   * writes, unparsed (the cheaper call where the text is what is wanted).
   *
   * @param {string} fen
   * @returns {string|null}
   * @throws {Error} a bad FEN (the native message), or a closed book
   */
  probeText(fen) {
    if (this.#handle === 0) throw new Error('archivist: the book is closed');
    return call((w) => {
      const [ptr, len] = putString(w, fen);
      const rc = w.arch_book_probe(this.#handle, ptr, len);
      const text = resultText(w);
      if (rc < 0) throw new Error(text);
      return rc === 0 ? null : text;
    });
  }

  /** Frees the book's memory; later probes throw. Closing twice does nothing. */
  close() {
    if (this.#handle === 0) return;
    const handle = this.#handle;
    this.#handle = 0;
    unheld?.unregister(this);
    call((w) => w.arch_book_close(handle));
  }
}

/**
 * Opens a book from its bytes, validated in full, its format told by
 * content as the native program tells a file's.
 *
 * @param {Uint8Array|ArrayBuffer} bytes the whole file (copied)
 * @param {string} [name] the file's name, where the native program tells
 *   the format by name (an ABK book without Arena's signature: `*.abk`)
 * @returns {Book}
 * @throws {Error} whose message is the native program's error text
 */
export function openBook(bytes, name = '') {
  const data = asBytes(bytes);
  return call((w) => {
    const [ptr, len] = put(w, data);
    const [namePtr, nameLen] = putString(w, String(name));
    const handle = w.arch_book_open(ptr, len, namePtr, nameLen);
    if (handle === 0) throw new Error(resultText(w));
    if (w.arch_book_format(handle) < 0) throw new Error(resultText(w));
    return new Book(opening, handle, resultText(w));
  });
}

/**
 * Converts a book as `archivist book convert --to TO` does.
 *
 * @param {Uint8Array|ArrayBuffer} bytes the input book (format told by content)
 * @param {string} to `sbob`, `json`, `polyglot` or `yacb`
 * @param {string} [name] the input's file name, as for {@link openBook}
 * @returns {{bytes: Uint8Array, report: string}} the converted book (a copy)
 *   and the report line, `FROM -> TO: …`
 * @throws {Error} whose message is the native program's error text
 */
export function convert(bytes, to, name = '') {
  const data = asBytes(bytes);
  return call((w) => {
    const [ptr, len] = put(w, data);
    const [toPtr, toLen] = putString(w, to);
    const [namePtr, nameLen] = putString(w, String(name));
    const rc = w.arch_convert(ptr, len, toPtr, toLen, namePtr, nameLen);
    const report = resultText(w);
    if (rc < 0) throw new Error(report);
    return { bytes: resultBytes(w), report };
  });
}

const LIMITS = { depth: 0, movetime: 1, nodes: 2 };

/**
 * Searches a position on this thread (one search thread, a fresh table of
 * the engine's default size, the built-in network). Blocks until done: run
 * it in a worker.
 *
 * @param {string} fen
 * @param {{depth: number}|{movetime: number}|{nodes: number}} limit exactly
 *   one of them (movetime in milliseconds)
 * @param {(iteration: {bestmove: string|null, depth: number, nodes: number,
 *   score: ({cp: number}|{mate: number}), pv: string[]}) => void} [onInfo]
 *   called with each completed iteration
 * @returns {{bestmove: string|null, depth: number, nodes: number,
 *   score: ({cp: number}|{mate: number}), pv: string[]}}
 * @throws {Error} a bad FEN or limit; or what `onInfo` threw
 */
export function search(fen, limit, onInfo) {
  const keys = limit && typeof limit === 'object' ? Object.keys(limit) : [];
  if (keys.length !== 1 || !Object.hasOwn(LIMITS, keys[0])) {
    throw new Error('archivist: search takes exactly one limit: {depth}, {movetime} or {nodes}');
  }
  const value = limit[keys[0]];
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new Error(`archivist: search limit ${keys[0]} must be a non-negative number, got ${value}`);
  }
  if (onInfo !== undefined && typeof onInfo !== 'function') throw new TypeError('archivist: onInfo must be a function');
  return call((w) => {
    const [ptr, len] = putString(w, fen);
    const sink = onInfo ? { onInfo, error: null } : null;
    infoSink = sink;
    let rc;
    try {
      rc = w.arch_search(ptr, len, LIMITS[keys[0]], value);
    } finally {
      infoSink = null;
    }
    const text = resultText(w);
    if (sink?.error) throw sink.error.e;
    if (rc < 0) throw new Error(text);
    return JSON.parse(text);
  });
}

/**
 * The legal moves of a position, in the move generator's order.
 *
 * @param {string} fen
 * @returns {{uci: string, san: string, fen: string}[]} each move and the FEN after it
 * @throws {Error} a bad FEN (the native message)
 */
export function moves(fen) {
  return call((w) => {
    const [ptr, len] = putString(w, fen);
    const rc = w.arch_moves(ptr, len);
    const text = resultText(w);
    if (rc < 0) throw new Error(text);
    return JSON.parse(text);
  });
}

/**
 * `archivist bench`'s node count: the fixed positions at the default depth,
 * one thread. Takes seconds.
 *
 * @returns {number}
 */
export function bench() {
  return call((w) => w.arch_bench());
}
