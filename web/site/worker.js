// The page's worker (a module worker started by page.js): it loads its own
// instance of archivist.wasm and runs the calls that take long, a search
// or a conversion, one at a time, on this thread instead of the page's.
// The page runs two of them, one for the engine and one for conversions,
// and stops a search by terminating the engine's worker and starting a new
// one.
//
// Messages from the page:
//   {type: "search", id, fen, limit}   limit: {movetime} | {depth} | {nodes}
//   {type: "convert", id, bytes, to, name}  bytes: the book (Uint8Array); to: sbob, json, polyglot, yacb; name: its file name
// Messages to the page:
//   {type: "ready"}                    the module is loaded; requests may come
//   {type: "info", id, info}           a completed iteration: {bestmove, depth, nodes, score, pv}
//   {type: "done", id, answer}         the search's answer (the same shape)
//   {type: "converted", id, bytes, report}  the converted book (its buffer transferred) and the report line
//   {type: "error", id, message}       a request (or, with id null, the loading) failed

import { init, search, convert } from "./archivist.js";

const loaded = init();

function answer(message) {
  const { id } = message;
  if (message.type === "search") {
    const result = search(message.fen, message.limit, (info) => self.postMessage({ type: "info", id, info }));
    self.postMessage({ type: "done", id, answer: result });
  } else if (message.type === "convert") {
    const out = convert(message.bytes, message.to, message.name);
    self.postMessage({ type: "converted", id, bytes: out.bytes, report: out.report }, [out.bytes.buffer]);
  }
}

// Set before anything is awaited, so that no message is missed; a request
// that arrives while the module loads waits for it.
self.onmessage = async (event) => {
  const message = event.data;
  if (!message) return;
  try {
    await loaded;
    answer(message);
  } catch (e) {
    self.postMessage({ type: "error", id: message.id ?? null, message: String(e && e.message ? e.message : e) });
  }
};

loaded.then(
  () => self.postMessage({ type: "ready" }),
  (e) => self.postMessage({ type: "error", id: null, message: `loading archivist.wasm: ${e && e.message ? e.message : e}` }),
);
