//! Lichess's opening explorer API over the user's own games
//! (`serve --lichess IDX… --masters IDX…`), answered from explorer indexes
//! ([`crate::explorer::query`]):
//!
//! | route | answer |
//! |---|---|
//! | `GET /lichess` | `fen` (default: the start position), `play` (UCI moves from it, comma-separated), `moves` (12), `topGames` (at most 4 by the rules), `recentGames` (at most 8 less the top games), `speeds`, `ratings`, `since`/`until` (`YYYY-MM`), `history=true` (the results month by month) |
//! | `GET /masters` (and `/master`) | the same without speeds, ratings, history and recent games; `topGames` ≤ 15, `since`/`until` years |
//! | `GET /masters/pgn/{id}`, `/master/pgn/{id}` | a game of the `--masters` indexes as PGN (`application/x-chess-pgn`), 404 for an unknown id |
//! | `GET /game/export/{id}` | a game of the `--lichess` indexes as PGN, 404 for an unknown id |
//! | `GET /player?player=&color=` | one NDJSON line: the player's games with that colour in the `--lichess` indexes (`speeds`, `modes=rated,casual`, `since`/`until`), each move's `averageOpponentRating` and `performance`, the 8 newest games at most (`recentGames`) |
//!
//! As Lichess: `variant=standard` (or `chess`) accepted, other variants 400;
//! list parameters are one comma-separated value (`speeds=blitz,rapid`);
//! the legacy `speeds[]=`/`ratings[]=` are ignored; a bad
//! parameter is a 400 with a JSON error. `Access-Control-Allow-Origin: *`.
//!
//! An index error met while answering (a block that fails its checksum,
//! [`crate::explorer::index`]) is a 500 whose `error` names the file and
//! the offset, logged; other requests are answered as before.

use super::api::query;
use super::lichess::lichess_board;
use super::{blocking, ApiError, State};
use crate::board::notation::uci_string;
use crate::board::Board;
use crate::explorer::model::{Mode, Month, RatingGroup, Speed};
use crate::explorer::openings::{self, Opening};
use crate::explorer::query::{pgn, ExplorerAnswer, Filter, Kind, Limits, PlayerAnswer, PlayerQuery, Shards};
use crate::types::{Color, Move};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path as UrlPath, Query, State as Shared};
use axum::http::header::{HeaderValue, CONTENT_TYPE};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use std::sync::Arc;

/// The parameters Lichess's explorer reads (all optional here; each
/// route says which it takes).
#[derive(Debug, Default, Deserialize)]
pub struct ExplorerQuery {
    pub fen: Option<String>,
    pub play: Option<String>,
    pub variant: Option<String>,
    pub speeds: Option<String>,
    pub ratings: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    pub moves: Option<String>,
    #[serde(rename = "topGames")]
    pub top_games: Option<String>,
    #[serde(rename = "recentGames")]
    pub recent_games: Option<String>,
    pub player: Option<String>,
    pub color: Option<String>,
    pub modes: Option<String>,
    pub history: Option<String>,
}

/// The position of `fen` after the `play` moves, and the opening named
/// last along the way.
fn position(q: &ExplorerQuery) -> Result<(Board, Option<Opening>), ApiError> {
    if let Some(v) = q.variant.as_deref() {
        if !matches!(v, "standard" | "chess") {
            return Err(ApiError::bad_request(format!("variant not supported: {v}")));
        }
    }
    let mut b = match q.fen.as_deref() {
        Some(fen) => lichess_board(fen)?,
        None => Board::startpos(),
    };
    let mut opening = openings::named(&b);
    for text in list(q.play.as_deref().unwrap_or(""), "play")? {
        let m = parse_uci(&b, text).ok_or_else(|| ApiError::bad_request(format!("illegal uci: {text}")))?;
        b.make_move(m);
        opening = openings::named(&b).or(opening);
    }
    Ok((b, opening))
}

/// A UCI move, castling as king to its square (`e1g1`) or takes rook (`e1h1`).
fn parse_uci(b: &Board, text: &str) -> Option<Move> {
    b.legal_moves().iter().find(|&m| b.move_to_uci(m) == text || uci_string(m, true) == text)
}

/// The items of a comma-separated list, as Lichess reads them: an empty
/// value is an empty list; an empty item is a 400.
fn list<'a>(value: &'a str, name: &str) -> Result<Vec<&'a str>, ApiError> {
    if value.is_empty() {
        return Ok(Vec::new());
    }
    let items: Vec<&str> = value.split(',').collect();
    if items.iter().any(|i| i.is_empty()) {
        return Err(ApiError::bad_request(format!("{name}: an empty item in '{value}'")));
    }
    Ok(items)
}

fn number(v: Option<&str>, name: &str, default: usize) -> Result<usize, ApiError> {
    v.map_or(Ok(default), |v| v.parse::<usize>().map_err(|_| ApiError::bad_request(format!("{name} must be a count"))))
}

/// `YYYY-MM` (or `YYYY/MM`), or for the masters a year (its first or
/// last month).
fn month(v: &str, end: bool, years: bool) -> Result<Month, ApiError> {
    let month = if years { Month::of_year(v, end) } else { v.parse() };
    month.map_err(|_| ApiError::bad_request(format!("bad month or year '{v}'")))
}

/// The filter and limits of a query (`player`: `/player`'s, which has no
/// rating filter and ignores `ratings`).
fn filter(q: &ExplorerQuery, kind: Kind, player: bool) -> Result<(Filter, Limits), ApiError> {
    let years = kind == Kind::Masters;
    let mut f = Filter {
        since: q.since.as_deref().map(|v| month(v, false, years)).transpose()?,
        until: q.until.as_deref().map(|v| month(v, true, years)).transpose()?,
        ..Filter::default()
    };
    if kind == Kind::Lichess {
        if let Some(value) = q.speeds.as_deref() {
            f.speeds = Some(
                list(value, "speeds")?
                    .into_iter()
                    .map(|s| s.parse::<Speed>().map_err(|_| ApiError::bad_request(format!("unknown speed '{s}'"))))
                    .collect::<Result<_, _>>()?,
            );
        }
        if let Some(value) = q.ratings.as_deref().filter(|_| kind == Kind::Lichess && !player) {
            let groups = list(value, "ratings")?
                .into_iter()
                .map(|s| s.parse::<RatingGroup>().map_err(|e| ApiError::bad_request(e.to_string())))
                .collect::<Result<Vec<_>, _>>()?;
            f.groups = Some(Filter::groups_of(groups));
        }
    }
    // Lichess's limits: unbounded unless given; the rules cap the lists.
    let limits = Limits {
        moves: number(q.moves.as_deref(), "moves", 12)?,
        top_games: number(q.top_games.as_deref(), "topGames", usize::MAX)?,
        recent_games: number(q.recent_games.as_deref(), "recentGames", usize::MAX)?,
    };
    Ok((f, limits))
}

fn shards(s: &State, kind: Kind) -> &Shards {
    match kind {
        Kind::Lichess => &s.lichess,
        Kind::Masters => &s.masters,
    }
}

/// `history=`, as Lichess reads it: `true`, `True`, `on`, `1`, `yes` or
/// `false`, `False`, `off`, `0`, `no`; anything else is a 400.
fn history(v: Option<&str>) -> Result<bool, ApiError> {
    match v {
        None | Some("false" | "False" | "off" | "0" | "no") => Ok(false),
        Some("true" | "True" | "on" | "1" | "yes") => Ok(true),
        Some(v) => Err(ApiError::bad_request(format!("history must be true or false, not '{v}'"))),
    }
}

/// A 500 for an index error met while answering (logged: the file needs
/// rebuilding).
fn index_error(e: impl std::fmt::Display) -> ApiError {
    tracing::error!("explorer index: {e}");
    ApiError::internal(format!("explorer index: {e}"))
}

async fn answer(s: Arc<State>, q: ExplorerQuery, kind: Kind) -> Result<Json<ExplorerAnswer>, ApiError> {
    let (board, opening) = position(&q)?;
    let (filter, limits) = filter(&q, kind, false)?;
    let history = kind == Kind::Lichess && history(q.history.as_deref())?;
    let answer = blocking(&s, move |s| shards(s, kind).answer(&board, &filter, limits, kind, history)).await?;
    let mut answer = answer.map_err(index_error)?;
    answer.opening = opening;
    Ok(Json(answer))
}

/// `GET /lichess`.
pub async fn lichess(
    Shared(s): Shared<Arc<State>>,
    q: Result<Query<ExplorerQuery>, QueryRejection>,
) -> Result<Json<ExplorerAnswer>, ApiError> {
    answer(s, query(q)?, Kind::Lichess).await
}

/// `GET /masters` (and `/master`).
pub async fn masters(
    Shared(s): Shared<Arc<State>>,
    q: Result<Query<ExplorerQuery>, QueryRejection>,
) -> Result<Json<ExplorerAnswer>, ApiError> {
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
        Ok(Ok(None)) => {
            ApiError { status: StatusCode::NOT_FOUND, message: "no game with that id".into() }.into_response()
        }
        Ok(Err(e)) => index_error(e).into_response(),
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
    let name = q.player.clone().filter(|p| !p.is_empty()).ok_or_else(|| ApiError::bad_request("player is required"))?;
    let color = match q.color.as_deref() {
        Some("white") => Color::White,
        Some("black") => Color::Black,
        _ => return Err(ApiError::bad_request("color must be white or black")),
    };
    let (board, opening) = position(&q)?;
    // `/player`'s own limits: every move, 8 recent games.
    let (filter, _) = filter(&q, Kind::Lichess, true)?;
    let modes: Option<Vec<Mode>> = q
        .modes
        .as_deref()
        .map(|v| {
            list(v, "modes")?
                .into_iter()
                .map(|m| m.parse::<Mode>().map_err(|e| ApiError::bad_request(e.to_string())))
                .collect()
        })
        .transpose()?;
    let asked = PlayerQuery {
        name,
        color,
        filter,
        modes,
        moves: q.moves.as_deref().map_or(Ok(usize::MAX), |v| number(Some(v), "moves", 0))?,
        recent_games: number(q.recent_games.as_deref(), "recentGames", 8)?.min(8),
    };
    let answer = blocking(&s, move |s| s.lichess.player_answer(&board, &asked)).await?.map_err(index_error)?;
    let answer = PlayerAnswer { opening, ..answer };
    let mut line = serde_json::to_string(&answer).map_err(|e| ApiError::internal(e.to_string()))?;
    line.push('\n');
    Ok(line)
}
