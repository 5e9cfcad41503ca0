// The page of the browser build: a board whose moves come from
// archivist.wasm (`moves`), a book opened from disk and probed here, its
// conversions offered as downloads, and the engine searching, both in
// module workers (worker.js) so the page never waits on them. Nothing is
// fetched but this folder's own files.
//
// The board follows `archivist serve`'s page (src/serve/page.html): an SVG
// whose squares and pieces carry `data-square="e2"`; a click on a piece,
// then on a square, plays the move (or drag it); promotions take the piece
// chosen beside the board, a queen unless told otherwise.

import { init, openBook, moves } from "./archivist.js";

const START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const GLYPH = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
const FILES = "abcdefgh";
const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));

const state = {
  // Positions from the first: {fen, san (of the move into it), uci}; `at` is the one shown.
  line: [{ fen: START, san: null, uci: null }],
  at: 0,
  legal: [],       // [{uci, san, fen}] of the position shown
  flipped: false,
  selected: null,  // square name
  drag: null,      // {from, x, y, moved}
  lastMove: null,
  book: null,      // {book, name, format, bytes}
  download: null,  // the object URL of the last conversion
  converting: false,
};

function fen() { return state.line[state.at].fen; }

// ----- the board -------------------------------------------------------
function placement(f) {
  const squares = {};
  f.split(" ")[0].split("/").forEach((row, i) => {
    let file = 0;
    for (const c of row) {
      if (/\d/.test(c)) { file += Number(c); continue; }
      squares[FILES[file] + (8 - i)] = c;
      file += 1;
    }
  });
  return squares;
}

function xy(square) {
  const f = square.charCodeAt(0) - 97, r = Number(square[1]) - 1;
  return state.flipped ? [7 - f, r] : [f, 7 - r];
}

function squareAt(x, y) {
  const f = state.flipped ? 7 - x : x, r = state.flipped ? y : 7 - y;
  if (f < 0 || f > 7 || r < 0 || r > 7) return null;
  return FILES[f] + (r + 1);
}

function drawBoard() {
  const pieces = placement(fen());
  const targets = new Set(state.selected ? state.legal.filter((m) => m.uci.startsWith(state.selected)).map((m) => m.uci.slice(2, 4)) : []);
  let out = "";
  for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) {
    const sq = squareAt(x, y);
    out += `<rect x="${x}" y="${y}" width="1" height="1" fill="var(--${(x + y) % 2 ? "dark" : "light"})" data-square="${sq}"/>`;
    const last = state.lastMove && (state.lastMove.slice(0, 2) === sq || state.lastMove.slice(2, 4) === sq);
    if (last || sq === state.selected) out += `<rect x="${x}" y="${y}" width="1" height="1" fill="var(--hi)" pointer-events="none"/>`;
    if (targets.has(sq)) out += `<circle cx="${x + .5}" cy="${y + .5}" r=".15" fill="rgba(0,0,0,.25)" pointer-events="none"/>`;
  }
  for (let i = 0; i < 8; i++) {
    const [fx] = xy(FILES[i] + "1"), [, ry] = xy("a" + (i + 1));
    out += `<text x="${fx + .96}" y="7.97" font-size=".18" text-anchor="end" pointer-events="none" fill="#333">${FILES[i]}</text>`;
    out += `<text x=".03" y="${ry + .2}" font-size=".18" pointer-events="none" fill="#333">${i + 1}</text>`;
  }
  for (const [sq, p] of Object.entries(pieces)) {
    if (state.drag && state.drag.moved && state.drag.from === sq) continue;
    out += pieceSvg(p, ...xy(sq), sq);
  }
  if (state.drag && state.drag.moved) out += pieceSvg(pieces[state.drag.from], state.drag.x - .5, state.drag.y - .5, null);
  $("board").innerHTML = out;
}

function pieceSvg(p, x, y, sq) {
  const white = p === p.toUpperCase();
  const data = sq ? ` data-square="${sq}" data-piece="${p}"` : ' pointer-events="none"';
  return `<text x="${x + .5}" y="${y + .8}" font-size=".85" text-anchor="middle"${data} ` +
    `fill="${white ? "#fff" : "#111"}" stroke="${white ? "#111" : "#eee"}" stroke-width=".025" style="cursor:grab">${GLYPH[p.toLowerCase()]}</text>`;
}

function boardPoint(ev) {
  const box = $("board").getBoundingClientRect();
  return [8 * (ev.clientX - box.left) / box.width, 8 * (ev.clientY - box.top) / box.height];
}

function ownPiece(sq) {
  const p = placement(fen())[sq];
  return !!p && (p === p.toUpperCase()) === (fen().split(" ")[1] === "w");
}

// The legal move from `from` to `to`, a promotion to the chosen piece (or the first there is).
function tryMove(from, to) {
  const matching = state.legal.filter((m) => m.uci.slice(0, 4) === from + to);
  if (matching.length === 0) return false;
  const piece = $("promotion").value;
  play(matching.find((m) => m.uci.length === 4 || m.uci[4] === piece) || matching[0]);
  return true;
}

$("board").addEventListener("pointerdown", (ev) => {
  const [x, y] = boardPoint(ev);
  const sq = squareAt(Math.floor(x), Math.floor(y));
  if (!sq) return;
  if (state.selected && state.selected !== sq && tryMove(state.selected, sq)) return;
  if (ownPiece(sq)) {
    state.selected = sq;
    state.drag = { from: sq, x, y, moved: false };
    $("board").setPointerCapture(ev.pointerId);
  } else {
    state.selected = null;
  }
  drawBoard();
});

$("board").addEventListener("pointermove", (ev) => {
  if (!state.drag) return;
  const [x, y] = boardPoint(ev);
  const moved = state.drag.moved || Math.hypot(x - state.drag.x, y - state.drag.y) > .2;
  Object.assign(state.drag, { x, y, moved });
  if (moved) drawBoard();
});

$("board").addEventListener("pointerup", (ev) => {
  if (!state.drag) return;
  const [x, y] = boardPoint(ev);
  const { from, moved } = state.drag;
  state.drag = null;
  const to = squareAt(Math.floor(x), Math.floor(y));
  if (moved && to && to !== from && tryMove(from, to)) return;
  drawBoard();
});

// ----- the line of moves ----------------------------------------------
function play(m) {
  const next = state.line[state.at + 1];
  // The line's own next move goes forward and keeps the rest of the line.
  if (!next || next.uci !== m.uci) {
    state.line = state.line.slice(0, state.at + 1);
    state.line.push({ fen: m.fen, san: m.san, uci: m.uci });
  }
  state.at += 1;
  show();
}

function playUci(uci) {
  const m = state.legal.find((x) => x.uci === uci);
  if (m) play(m);
}

function drawMoves() {
  const first = state.line[0].fen.split(" ");
  let number = Number(first[5]) || 1, black = first[1] === "b";
  let out = "";
  state.line.forEach((p, i) => {
    if (i === 0) return;
    if (!black) out += `${number}. `;
    else if (i === 1) out += `${number}... `;
    out += `<span data-index="${i}" class="${i === state.at ? "current" : ""}">${esc(p.san)}</span> `;
    if (black) number += 1;
    black = !black;
  });
  $("moves").innerHTML = out || '<span class="muted">no moves yet</span>';
}

function setFen(f) {
  state.line = [{ fen: f, san: null, uci: null }];
  state.at = 0;
  show();
}

function go(at) {
  if (at >= 0 && at < state.line.length && at !== state.at) { state.at = at; show(); }
}

$("moves").addEventListener("click", (ev) => {
  const i = ev.target.dataset && ev.target.dataset.index;
  if (i !== undefined) go(Number(i));
});
$("first").onclick = () => go(0);
$("back").onclick = () => go(state.at - 1);
$("fwd").onclick = () => go(state.at + 1);
$("last").onclick = () => go(state.line.length - 1);
$("flip").onclick = () => { state.flipped = !state.flipped; drawBoard(); };
$("startpos").onclick = () => setFen(START);
$("setfen").onclick = () => setFen($("fen").value.trim());
$("fen").addEventListener("keydown", (ev) => { if (ev.key === "Enter") $("setfen").onclick(); });
document.addEventListener("keydown", (ev) => {
  if (ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT") return;
  if (ev.key === "ArrowLeft") $("back").onclick();
  if (ev.key === "ArrowRight") $("fwd").onclick();
});

// ----- the book ---------------------------------------------------------
// A square of SBOB's JSON form, [row, col] = [rank index, file index], as its name.
function squareName(rc) {
  if (!Array.isArray(rc) || rc.length !== 2) return null;
  const [r, c] = rc;
  return r >= 0 && r < 8 && c >= 0 && c < 8 ? FILES[c] + (r + 1) : null;
}

// A promotion piece of the JSON form (a name or SBOB's number) as its UCI letter.
const PROMOTION = { 2: "n", 3: "b", 4: "r", 5: "q", knight: "n", bishop: "b", rook: "r", queen: "q" };

function sameSan(a, b) {
  const norm = (s) => String(s).replace(/[+#!?]/g, "").replace(/0/g, "O").replace("=", "");
  return norm(a) === norm(b);
}

// The legal move an SBOB/JSON move names: by its squares (castling is stored
// as the king onto its own rook), else by its notation; null if none.
function legalOfEntry(m) {
  const from = m.is_drop ? null : squareName(m.from), to = squareName(m.to);
  if (from && to) {
    const there = state.legal.filter((x) => x.uci.slice(0, 4) === from + to);
    const promo = m.is_promotion && m.promotion !== undefined ? PROMOTION[String(m.promotion).toLowerCase()] : null;
    const exact = promo ? there.find((x) => x.uci[4] === promo)
      : there.find((x) => x.uci.length === 4) || there.find((x) => x.uci[4] === "q");
    if (exact) return exact;
    const rook = placement(fen())[to], king = placement(fen())[from];
    if (king && rook && king.toLowerCase() === "k" && rook.toLowerCase() === "r" && (king === "K") === (rook === "R")) {
      const side = to[0] > from[0] ? "O-O" : "O-O-O";
      const castle = state.legal.find((x) => x.uci.startsWith(from) && x.san.replace(/[+#]/g, "") === side);
      if (castle) return castle;
    }
  }
  if (m.move_notation) return state.legal.find((x) => sameSan(x.san, m.move_notation)) || null;
  return null;
}

function entryText(e) {
  if (!e) return "";
  return `${esc(e.value_type)} ${esc(e.value)}${e.bound && e.bound !== "exact" ? ` (${esc(e.bound)})` : ""}`;
}

// The rows of a probe's answer: [{uci (null: not playable here), san, weight, evaluation, details}].
function bookRows(answer, format) {
  if (format === "sbob" || format === "json" || format === "legacy-json") {
    return answer.moves.map((m) => {
      const legal = legalOfEntry(m);
      const fallback = m.move_notation || `${squareName(m.from) || "drop"}-${squareName(m.to) || "?"}`;
      return {
        uci: legal ? legal.uci : null, san: legal ? legal.san : fallback, weight: m.weight,
        evaluation: String(m.evaluation), details: m.opening_name ? esc(m.opening_name) : "",
      };
    });
  }
  return answer.moves.map((m) => {
    let details = "";
    if (format === "polyglot") details = m.learn ? `learn ${m.learn}` : "";
    if (format === "abk") details = `${m.games} games: +${m.won} =${m.drawn} \u2212${m.lost}, priority ${m.priority}`;
    if (format === "yacb") details = `expected ${(100 * m.expected).toFixed(1)}%${m.best_move ? ", the entry's best move" : ""}`;
    return { uci: m.uci, san: m.san, weight: m.weight, evaluation: entryText(m.entry), details };
  });
}

function drawBook() {
  const b = state.book;
  if (!b) { $("book").innerHTML = ""; return; }
  let answer;
  try {
    answer = b.book.probe(fen());
  } catch (e) {
    $("book").innerHTML = `<p class="error">${esc(e.message)}</p>`;
    return;
  }
  if (!answer || answer.moves.length === 0) {
    $("book").innerHTML = '<p class="muted">not in this book</p>';
    return;
  }
  const rows = bookRows(answer, b.format);
  const total = rows.reduce((s, r) => s + (r.weight || 0), 0) || 1;
  const body = rows.map((r) => {
    const attrs = r.uci ? `class="move" data-uci="${esc(r.uci)}"` : 'class="unplayable" title="not a legal move here"';
    return `<tr ${attrs}><td>${esc(r.san)}</td><td class="num">${esc(r.weight)}</td>` +
      `<td class="num">${(100 * (r.weight || 0) / total).toFixed(1)}%</td><td>${r.evaluation}</td><td>${r.details}</td></tr>`;
  }).join("");
  $("book").innerHTML = `<table><tr><th>move</th><th>weight</th><th>share</th><th>evaluation</th><th>details</th></tr>${body}</table>`;
}

$("book").addEventListener("click", (ev) => {
  const row = ev.target.closest && ev.target.closest("tr.move");
  if (row) playUci(row.dataset.uci);
});

function closeBook() {
  if (state.book) state.book.book.close();
  state.book = null;
}

async function chooseBook() {
  const file = $("book-file").files[0];
  if (!file) return;
  await loaded;
  closeBook();
  try {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const book = openBook(bytes, file.name);
    state.book = { book, name: file.name, format: book.format, bytes };
    $("book-info").className = "";
    $("book-info").innerHTML = `<b>${esc(file.name)}</b> <span id="book-format" class="muted">${esc(book.format)}</span>` +
      ` <span class="muted">${bytes.length.toLocaleString("en-US")} bytes</span>`;
  } catch (e) {
    $("book-info").className = "error";
    $("book-info").textContent = `${file.name}: ${e.message}`;
  }
  drawBook();
  drawConvert();
}
$("book-file").addEventListener("change", () => { chooseBook(); });

// ----- conversions ------------------------------------------------------
const EXTENSION = { sbob: ".sbob", json: ".json", polyglot: ".bin", yacb: ".yacb" };

// The name a conversion is saved under: the book's name with the target's extension.
function outputName(name, to) {
  const stem = name.replace(/\.[^.]*$/, "") || "book";
  const out = stem + EXTENSION[to];
  return out === name ? `${stem}-converted${EXTENSION[to]}` : out;
}

// Which conversions apply: the named ones from the open book's format, any
// target through the list; none while one runs.
function drawConvertButtons() {
  const format = state.book && !state.converting ? state.book.format : null;
  for (const b of $("convert-buttons").querySelectorAll("button")) b.disabled = b.dataset.from !== format;
  $("convert-go").disabled = !format;
}

function drawConvert() {
  drawConvertButtons();
  const format = state.book ? state.book.format : null;
  if (format && $("convert-to").value === format) $("convert-to").value = format === "sbob" ? "json" : "sbob";
  if (state.converting) return;
  $("convert-report").textContent = format ? `${state.book.name} (${format}) can be converted` : "open a book first";
  $("convert-report").className = "muted";
}

// Conversions run in a worker of their own, started at the first one.
const converter = { worker: null, id: 0, pending: new Map() };

function convertInWorker(bytes, to, name) {
  if (!converter.worker) {
    const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    const failAll = (message) => {
      for (const p of converter.pending.values()) p.reject(new Error(message));
      converter.pending.clear();
    };
    worker.onmessage = (ev) => {
      const m = ev.data, p = converter.pending.get(m.id);
      if (m.type === "error" && m.id === null) failAll(m.message);
      if (!p) return;
      converter.pending.delete(m.id);
      if (m.type === "converted") p.resolve(m);
      else p.reject(new Error(m.message));
    };
    worker.onerror = (ev) => {
      failAll(`the conversion's worker failed: ${ev.message || "it could not start"}`);
      converter.worker = null;
    };
    converter.worker = worker;
  }
  const id = ++converter.id;
  return new Promise((resolve, reject) => {
    converter.pending.set(id, { resolve, reject });
    converter.worker.postMessage({ type: "convert", id, bytes, to, name });
  });
}

async function runConvert(to) {
  const b = state.book;
  if (!b || state.converting) return;
  const report = $("convert-report");
  report.className = "muted";
  report.textContent = `converting ${b.name} to ${to}…`;
  state.converting = true;
  drawConvertButtons();
  try {
    const out = await convertInWorker(b.bytes, to, b.name);
    const name = outputName(b.name, to);
    const blob = new Blob([out.bytes], { type: to === "json" ? "application/json" : "application/octet-stream" });
    if (state.download) URL.revokeObjectURL(state.download);
    state.download = URL.createObjectURL(blob);
    const a = $("convert-download");
    a.href = state.download;
    a.download = name;
    a.textContent = `save ${name} again (${out.bytes.length.toLocaleString("en-US")} bytes)`;
    a.hidden = false;
    a.click();
    report.className = "";
    report.textContent = out.report;
  } catch (e) {
    report.className = "error";
    report.textContent = e.message;
  }
  state.converting = false;
  drawConvertButtons();
}

$("convert-buttons").addEventListener("click", (ev) => {
  const b = ev.target.closest && ev.target.closest("button");
  if (b && !b.disabled) runConvert(b.dataset.to);
});
$("convert-go").onclick = () => runConvert($("convert-to").value);

// ----- the engine -------------------------------------------------------
const engine = {
  worker: null,
  ready: false,
  id: 0,          // of the last search asked for
  running: null,  // {id, fen} of the search under way
  last: null,     // its last completed iteration
  shown: null,    // the FEN whose answer the panel shows
};

function startWorker() {
  const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  engine.worker = worker;
  engine.ready = false;
  worker.onmessage = (ev) => { if (engine.worker === worker) onEngineMessage(ev.data); };
  worker.onerror = (ev) => {
    if (engine.worker !== worker) return;
    engine.running = null;
    engineStatus(`the engine's worker failed: ${ev.message || "it could not start"}`, "error");
    drawEngineButtons();
  };
  drawEngineButtons();
}

function engineStatus(text, cls = "muted") {
  $("engine-status").textContent = text;
  $("engine-status").className = cls;
}

function drawEngineButtons() {
  $("engine-go").disabled = !engine.ready || !!engine.running;
  $("engine-stop").disabled = !engine.running;
  $("engine").dataset.state = engine.running ? "searching" : engine.ready ? "ready" : "loading";
}

function onEngineMessage(m) {
  const current = engine.running && m.id === engine.running.id;
  if (m.type === "ready") {
    engine.ready = true;
    if (!engine.running && $("engine-status").textContent === "loading the engine…") engineStatus("ready");
  } else if (m.type === "info" && current) {
    engine.last = m.info;
    drawEngine(m.info, engine.running.fen);
    engineStatus(`searching… depth ${m.info.depth} done`);
  } else if (m.type === "done" && current) {
    drawEngine(m.answer, engine.running.fen);
    engine.running = null;
    engineStatus(`done: depth ${m.answer.depth}, ${m.answer.nodes.toLocaleString("en-US")} nodes`);
  } else if (m.type === "error" && (current || m.id === null)) {
    engine.running = null;
    engineStatus(m.message, "error");
  }
  drawEngineButtons();
}

function scoreText(score, at) {
  if (!score) return "";
  const white = at.split(" ")[1] !== "b";
  if (score.mate !== undefined) {
    const n = white ? score.mate : -score.mate;
    return `#${n}`;
  }
  const cp = white ? score.cp : -score.cp;
  return `${cp >= 0 ? "+" : "\u2212"}${(Math.abs(cp) / 100).toFixed(2)}`;
}

// An answer or iteration of the search of `at`: its move and line in SAN.
function drawEngine(answer, at) {
  engine.shown = at;
  const sans = [];
  let f = at;
  for (const uci of answer.pv || []) {
    let m = null;
    try { m = moves(f).find((x) => x.uci === uci); } catch (e) { m = null; }
    if (!m) break;
    sans.push(m.san);
    f = m.fen;
  }
  const best = answer.bestmove;
  let bestSan = best;
  if (best) {
    try { bestSan = (moves(at).find((x) => x.uci === best) || { san: best }).san; } catch (e) { bestSan = best; }
  }
  $("engine-bestmove").textContent = best ? bestSan : "none";
  $("engine-bestmove").dataset.uci = best || "";
  $("engine-score").textContent = scoreText(answer.score, at);
  $("engine-score").title = "White's view";
  $("engine-depth").textContent = `${answer.depth} (${Number(answer.nodes).toLocaleString("en-US")} nodes)`;
  $("engine-line").textContent = sans.join(" ");
  $("engine-line").dataset.uci = (answer.pv || []).join(" ");
}

function clearEngine() {
  engine.shown = null;
  for (const id of ["engine-bestmove", "engine-score", "engine-depth", "engine-line"]) {
    $(id).textContent = "";
    delete $(id).dataset.uci;
  }
}

function search() {
  if (!engine.ready || engine.running) return;
  const kind = $("engine-limit").value, value = Math.floor(Number($("engine-value").value));
  if (!(value > 0)) { engineStatus(`the ${kind} must be a positive number`, "error"); return; }
  const id = ++engine.id;
  engine.running = { id, fen: fen() };
  engine.last = null;
  clearEngine();
  engineStatus("searching…");
  engine.worker.postMessage({ type: "search", id, fen: fen(), limit: { [kind]: value } });
  drawEngineButtons();
}

// Ends the search under way by ending its worker; `keep`: its last completed
// iteration stays as the answer. A new worker is started for the next search.
function stopSearch(keep) {
  if (!engine.running) return;
  const at = engine.running.fen, last = engine.last;
  engine.worker.terminate();
  engine.running = null;
  if (keep && last) {
    drawEngine(last, at);
    engineStatus(`stopped: best move from depth ${last.depth}`);
  } else {
    clearEngine();
    engineStatus(keep ? "stopped before the first iteration completed" : "stopped: the position changed");
  }
  startWorker();
}

$("engine-go").onclick = search;
$("engine-stop").onclick = () => stopSearch(true);
$("engine-bestmove").onclick = () => {
  const uci = $("engine-bestmove").dataset.uci;
  if (uci && engine.shown === fen()) playUci(uci);
};
const LIMIT_DEFAULT = { movetime: 3000, depth: 12, nodes: 1000000 };
$("engine-limit").onchange = () => { $("engine-value").value = LIMIT_DEFAULT[$("engine-limit").value]; };

// ----- showing a position -------------------------------------------------
function show() {
  const p = state.line[state.at];
  state.selected = null;
  state.drag = null;
  state.lastMove = p.uci;
  $("fen").value = p.fen;
  try {
    state.legal = moves(p.fen);
    const mate = p.san && p.san.endsWith("#");
    $("status").textContent = state.legal.length ? "" : mate ? "checkmate" : "no legal moves";
  } catch (e) {
    state.legal = [];
    $("status").textContent = e.message;
  }
  drawBoard();
  drawMoves();
  drawBook();
  if (engine.running && engine.running.fen !== p.fen) stopSearch(false);
  else if (engine.shown && engine.shown !== p.fen) clearEngine();
}

// Scripts run: the file:// warning goes; the board waits for the module.
$("boot").remove();
$("status").textContent = "loading archivist.wasm…";
startWorker();
const loaded = init();
loaded.then(() => {
  $("status").textContent = "";
  setFen(new URLSearchParams(location.search).get("fen") || START);
  drawConvert();
}, (e) => {
  $("status").textContent = `archivist.wasm could not be loaded: ${e.message}`;
});
