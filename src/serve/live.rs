//! `GET /api/analyse?fen=&multipv=`: a live search streamed as
//! server-sent events.
//!
//! * Each search has one thread and its own table of `--search-hash` MB
//!   (never the loaded SFTT), on a thread of its own with the engine's
//!   stack size.
//! * At most `--searches` run at once: a request finding every slot taken
//!   gets 429 at once (`{"error": …}`), before any event.
//! * Events: `info` (`{"depth", "seldepth", "multipv", "score": {"cp"} or
//!   {"mate"}, "bound", "wdl": [w, d, l] per mille, "nodes", "nps",
//!   "time_ms", "pv": [{uci, san}]}`) after each finished iteration and
//!   line, then `done` (`{"bestmove", "depth", "nodes"}`), and the stream
//!   ends.
//! * A search stops after `--search-seconds`, or within a second of its
//!   client going away (the stream dropped): a watcher sets the search's
//!   stop flag, and the slot is free when the thread ends.

use super::api::{board, line_json, query, score_json};
use super::{ApiError, State};
use crate::board::Board;
use crate::search::{InfoLine, Limits, Reporter, SearchConfig, SearchEvent, Searcher, Shared as Control};
use crate::tt::Bound;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State as Shared};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;
use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_stream::wrappers::UnboundedReceiverStream;
use tokio_stream::StreamExt;

/// Lines at most (`multipv`).
pub const MAX_MULTIPV: usize = 10;
/// Stack of a search thread (the engine's search threads have the same).
const SEARCH_STACK: usize = 32 << 20;

#[derive(Debug, Deserialize)]
pub struct AnalyseQuery {
    pub fen: String,
    #[serde(default)]
    pub chess960: bool,
    #[serde(default = "one")]
    pub multipv: usize,
}

fn one() -> usize {
    1
}

pub async fn analyse(Shared(s): Shared<Arc<State>>, q: Result<Query<AnalyseQuery>, QueryRejection>) -> Response {
    match start(&s, q) {
        Ok(r) => r,
        Err(e) => e.into_response(),
    }
}

fn start(s: &State, q: Result<Query<AnalyseQuery>, QueryRejection>) -> Result<Response, ApiError> {
    let q = query(q)?;
    let b = board(&q.fen, q.chess960)?;
    if !(1..=MAX_MULTIPV).contains(&q.multipv) {
        return Err(ApiError::bad_param("multipv", format!("multipv must be 1 to {MAX_MULTIPV}")));
    }
    if b.legal_moves().is_empty() {
        return Err(ApiError::NoLegalMove);
    }
    let Ok(permit) = s.slots.clone().try_acquire_owned() else {
        return Err(ApiError::Busy(s.searches));
    };
    // Events, then `None`: the stream ends there (the watcher's sender
    // keeps the channel open until the response is dropped).
    let (tx, rx) = mpsc::unbounded_channel::<Option<Event>>();
    let shared = Arc::new(Control::new(1, false));
    let limits = Limits { movetime_ms: Some(s.search_seconds * 1000), ..Limits::default() };
    let config = SearchConfig { multipv: q.multipv, tb: s.tb_loaded.then(|| s.tb.clone()), ..SearchConfig::default() };
    // The watcher: the response dropped (client gone) stops the search.
    let (watch_tx, watch_shared) = (tx.clone(), shared.clone());
    tokio::spawn(async move {
        watch_tx.closed().await;
        watch_shared.stop.store(true, Ordering::Relaxed);
    });
    let hash_mb = s.search_hash_mb;
    let spawned = std::thread::Builder::new().name("serve-search".into()).stack_size(SEARCH_STACK).spawn(move || {
        let _slot = permit;
        let mut searcher = Searcher::new(hash_mb, 1);
        let (root, lines) = (b.clone(), tx.clone());
        let report: Reporter = Arc::new(move |event| {
            if let SearchEvent::Info(info) = event {
                let _ = lines.send(Some(Event::default().event("info").data(info_json(&root, &info).to_string())));
            }
        });
        let outcome = searcher.search(&b, &limits, &config, &shared, Some(&report));
        let done = json!({"bestmove": b.move_to_uci(outcome.best), "depth": outcome.depth, "nodes": outcome.nodes});
        let _ = tx.send(Some(Event::default().event("done").data(done.to_string())));
        let _ = tx.send(None);
    });
    if let Err(e) = spawned {
        return Err(ApiError::NoThread(e));
    }
    let stream = UnboundedReceiverStream::new(rx).map_while(|event| event).map(Ok::<Event, Infallible>);
    // A comment every half second: writing to a client that went away
    // fails, the response is dropped, and the watcher stops the search.
    let keep_alive = KeepAlive::new().interval(std::time::Duration::from_millis(500));
    Ok(Sse::new(stream).keep_alive(keep_alive).into_response())
}

/// The data of an `info` event: the line with its moves in UCI and SAN.
fn info_json(root: &Board, info: &InfoLine) -> serde_json::Value {
    let (w, d, l) = crate::search::wdl_model(info.value);
    json!({
        "depth": info.depth, "seldepth": info.seldepth, "multipv": info.multipv,
        "score": score_json(info.value),
        "bound": info.bound.map(Bound::name),
        "wdl": [w, d, l], "nodes": info.nodes, "nps": info.nps, "time_ms": info.time_ms, "pv": line_json(root, &info.pv),
    })
}
