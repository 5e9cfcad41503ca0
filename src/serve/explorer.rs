//! Lichess's opening explorer API over the user's own games
//! (`serve --lichess IDX… --masters IDX…`), answered from explorer indexes
//! ([`crate::explorer::query`], which holds the answers' rules). The routes
//! are [`super::ROUTES`]'s; their parameters and answers, README.md's
//! table ("The opening explorer"). Here only the translation: the query
//! read into its types ([`params`]), the position (`fen`, then the `play`
//! moves) and the filter and limits made of it, the answer's lookup on the
//! blocking pool, and the answer or the error written back.
//!
//! As Lichess: `variant=standard` (or `chess`) accepted, other variants
//! 400; the legacy `speeds[]=`/`ratings[]=` are ignored; a bad parameter
//! is a 400 with a JSON error ([`params`] says which, when several are).
//!
//! `/lichess`'s and `/masters`'s answers are kept, encoded, by their
//! typed query ([`ExplorerKey`], [`super::answers`]): the position's key
//! in the index ([`Board::key_legal_ep`]), the route, the opening named
//! along `fen` and `play`, and the filter and limits in their one form
//! ([`Filter::normalised`], [`Limits::normalised`]), which is what the
//! answer is computed from: two queries share an answer exactly when they
//! ask the same question by these (`speeds=blitz,rapid` and
//! `speeds=rapid,blitz`, `topGames=4` and `topGames=9`). An answer that met
//! an index error is never kept. The position is its 64-bit key, as the
//! index knows it: two positions of one key would share their answers.
//!
//! An index error met while answering (a block that fails its checksum,
//! [`crate::explorer::index`]) is a 500 whose `error` names the file and
//! the offset, logged; other requests are answered as before.

mod params;
#[cfg(test)]
mod tests;

use super::answers::{CacheKey, Format};
use super::api::query;
use super::lichess::lichess_board;
use super::{blocking, ApiError, State};
use crate::board::notation::uci_string;
use crate::board::Board;
use crate::explorer::openings::{self, Opening};
use crate::explorer::query::{pgn, Filter, Kind, Limits, PlayerQuery, Shards};
use crate::types::Move;
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path as UrlPath, Query, State as Shared};
use axum::http::header::{HeaderValue, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use params::{ExplorerQuery, COLOR};
use std::sync::Arc;

/// The position of `fen` after the `play` moves, and the opening named
/// last along the way.
fn position(q: &ExplorerQuery) -> Result<(Board, Option<Opening>), ApiError> {
    if let Some(v) = q.variant.as_deref() {
        if !matches!(v, "standard" | "chess") {
            return Err(ApiError::Variant(v.to_string()));
        }
    }
    let mut b = match q.fen.as_deref() {
        Some(fen) => lichess_board(fen)?,
        None => Board::startpos(),
    };
    let mut opening = openings::named(&b);
    for text in q.play.get()? {
        let m = parse_uci(&b, text).ok_or_else(|| ApiError::IllegalMove(text.to_string()))?;
        b.make_move(m);
        opening = openings::named(&b).or(opening);
    }
    Ok((b, opening))
}

/// A UCI move, castling as king to its square (`e1g1`) or takes rook (`e1h1`).
fn parse_uci(b: &Board, text: &str) -> Option<Move> {
    b.legal_moves().iter().find(|&m| b.move_to_uci(m) == text || uci_string(m, true) == text)
}

/// The filter and limits of a query (`player`: `/player`'s, which has no
/// rating filter and ignores `ratings`).
fn filter(q: &ExplorerQuery, kind: Kind, player: bool) -> Result<(Filter, Limits), ApiError> {
    let years = kind == Kind::Masters;
    let mut f = Filter {
        since: q.since.get()?.as_ref().map(|p| p.month(years, false)).transpose()?,
        until: q.until.get()?.as_ref().map(|p| p.month(years, true)).transpose()?,
        ..Filter::default()
    };
    if kind == Kind::Lichess {
        f.speeds = q.speeds.get()?.clone();
        if !player {
            f.groups = q.ratings.get()?.clone().map(Filter::groups_of);
        }
    }
    // Lichess's limits: unbounded unless given; the rules cap the lists.
    let limits = Limits {
        moves: q.moves.get()?.unwrap_or(12),
        top_games: q.top_games.get()?.unwrap_or(usize::MAX),
        recent_games: q.recent_games.get()?.unwrap_or(usize::MAX),
    };
    Ok((f, limits))
}

fn shards(s: &State, kind: Kind) -> &Shards {
    match kind {
        Kind::Lichess => &s.lichess,
        Kind::Masters => &s.masters,
    }
}

/// What an explorer answer is kept by (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExplorerKey {
    position: u64,
    kind: Kind,
    opening: Option<Opening>,
    filter: Filter,
    limits: Limits,
    history: bool,
}

impl CacheKey for ExplorerKey {
    fn bytes(&self) -> usize {
        let lists = self.filter.speeds.as_ref().map_or(0, Vec::len) + self.filter.groups.as_ref().map_or(0, Vec::len);
        std::mem::size_of::<ExplorerKey>() + lists
    }
}

async fn answer(s: Arc<State>, q: ExplorerQuery, kind: Kind) -> Result<Response, ApiError> {
    let (board, opening) = position(&q)?;
    let (filter, limits) = filter(&q, kind, false)?;
    let history = kind == Kind::Lichess && *q.history.get()?;
    let (filter, limits) = (filter.normalised(), limits.normalised(kind));
    let key = ExplorerKey { position: board.key_legal_ep(), kind, opening, filter, limits, history };
    if let Some(kept) = s.explorer_answers.get(&key) {
        return Ok(Format::Json.reply(kept));
    }
    let body = blocking(&s, move |s| {
        let mut answer = shards(s, kind).answer(&board, &key.filter, key.limits, kind, history)?;
        answer.opening = opening;
        let body = Bytes::from(Format::Json.encode(&answer)?);
        s.explorer_answers.insert(key, body.clone());
        Ok::<_, ApiError>(body)
    });
    Ok(Format::Json.reply(body.await??))
}

/// `GET /lichess`.
pub async fn lichess(
    Shared(s): Shared<Arc<State>>,
    q: Result<Query<ExplorerQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    answer(s, query(q)?, Kind::Lichess).await
}

/// `GET /masters` (and `/master`).
pub async fn masters(
    Shared(s): Shared<Arc<State>>,
    q: Result<Query<ExplorerQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    answer(s, query(q)?, Kind::Masters).await
}

/// `GET /masters/pgn/{id}` (and `/master/pgn/{id}`): a game of the
/// masters indexes as PGN, as Lichess's masters database gives one.
pub async fn masters_pgn(Shared(s): Shared<Arc<State>>, UrlPath(id): UrlPath<String>) -> Response {
    game_pgn(s, id, Kind::Masters).await
}

/// `GET /game/export/{id}`: a game of the Lichess indexes as PGN.
pub async fn lichess_pgn(Shared(s): Shared<Arc<State>>, UrlPath(id): UrlPath<String>) -> Response {
    game_pgn(s, id, Kind::Lichess).await
}

async fn game_pgn(s: Arc<State>, id: String, kind: Kind) -> Response {
    let id = id.trim_end_matches(".pgn").to_string();
    let found = blocking(&s, move |s| shards(s, kind).game_by_id(&id).map(|g| g.map(|g| pgn(&g)))).await;
    match found {
        Ok(Ok(Some(text))) => {
            ([(CONTENT_TYPE, HeaderValue::from_static("application/x-chess-pgn"))], text).into_response()
        }
        Ok(Ok(None)) => ApiError::NotFound("no game with that id").into_response(),
        Ok(Err(e)) => ApiError::from(e).into_response(),
        Err(e) => e.into_response(),
    }
}

/// `GET /player?player=&color=`: the games of the `--lichess` indexes where
/// `player` (case ignored) had `color`, replayed to the position.
pub async fn player(Shared(s): Shared<Arc<State>>, q: Result<Query<ExplorerQuery>, QueryRejection>) -> Response {
    match player_answer(s, q).await {
        Ok(line) => ([(CONTENT_TYPE, HeaderValue::from_static("application/x-ndjson"))], line).into_response(),
        Err(e) => e.into_response(),
    }
}

async fn player_answer(s: Arc<State>, q: Result<Query<ExplorerQuery>, QueryRejection>) -> Result<String, ApiError> {
    let q = query(q)?;
    let name = q
        .player
        .clone()
        .filter(|p| !p.is_empty())
        .ok_or_else(|| ApiError::bad_param("player", "player is required"))?;
    let color = q.color.get()?.ok_or_else(|| ApiError::bad_param("color", COLOR))?;
    let (board, opening) = position(&q)?;
    // `/player`'s own limits: every move, 8 recent games.
    let (filter, _) = filter(&q, Kind::Lichess, true)?;
    let modes = q.modes.get()?.clone();
    let asked = PlayerQuery {
        name,
        color,
        filter,
        modes,
        moves: q.moves.get()?.unwrap_or(usize::MAX),
        recent_games: q.recent_games.get()?.unwrap_or(8).min(8),
    };
    let mut answer = blocking(&s, move |s| s.lichess.player_answer(&board, &asked)).await??;
    answer.opening = opening;
    let mut line = serde_json::to_string(&answer).map_err(|e| ApiError::Encoding(e.to_string()))?;
    line.push('\n');
    Ok(line)
}
