//! `archivist tb probe --moves [--json]` and `archivist tb line`: the
//! output of [`crate::tb::Tablebases::probe_moves`] and
//! [`crate::tb::Tablebases::line`].
//!
//! `--moves --json` prints one object per position: `fen` (as given) and
//! the fields of [`crate::tb::TablebaseAnswer`], the Lichess tablebase
//! API's answer that `archivist serve` gives too. Without `--json`: a
//! header line and one line per move. A bad FEN or a damaged table gives
//! `FEN;error;REASON` (with `--json`, `{"fen", "error"}`) and the run goes
//! on.

use crate::board::Board;
use crate::tb::{MovesReport, TablebaseAnswer, Tablebases, TbLine};
use serde::Serialize;
use serde_json::{json, Value};

/// A line of `tb probe --moves --json`: the position as given and its
/// answer.
#[derive(Serialize)]
struct Answered<'a> {
    fen: &'a str,
    #[serde(flatten)]
    answer: TablebaseAnswer,
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "?".to_string(), |v| v.to_string())
}

/// The text form: `FEN: category C, wdl W, dtz D` then `RANK UCI SAN
/// category wdl dtz` per move.
pub fn report_text(fen: &str, r: &MovesReport) -> String {
    use std::fmt::Write as _;
    let p = &r.position;
    let mut s = format!(
        "{fen}: {} (wdl {}, dtz {})\n",
        r.category.name(),
        opt(p.wdl.map(|w| w.value())),
        opt(p.dtz.map(|d| d.0))
    );
    for (i, m) in r.moves.iter().enumerate() {
        let _ = writeln!(
            s,
            "{:>3} {:<6} {:<8} {:<12} wdl {:>2} dtz {:>4}{}",
            i + 1,
            m.uci,
            m.san,
            m.category.name(),
            opt(m.after.wdl.map(|w| w.value())),
            opt(m.after.dtz.map(|d| d.0)),
            if m.zeroing { " zeroing" } else { "" }
        );
    }
    s
}

/// `tb probe --moves` for one FEN: the report, or the error as
/// `FEN;error;REASON` (`{"fen", "error"}` with `--json`).
pub fn moves_output(tb: &Tablebases, fen: &str, as_json: bool) -> String {
    let report = Board::from_fen(fen, false)
        .map_err(|e| e.to_string())
        .and_then(|mut b| tb.probe_moves(&mut b).map_err(|e| e.to_string()));
    match report {
        Ok(r) if as_json => {
            let line = serde_json::to_string(&Answered { fen, answer: r.answer() });
            format!("{}\n", line.unwrap_or_else(|e| json!({"fen": fen, "error": e.to_string()}).to_string()))
        }
        Ok(r) => report_text(fen, &r),
        Err(e) if as_json => format!("{}\n", json!({"fen": fen, "error": e})),
        Err(e) => format!("{fen};error;{e}\n"),
    }
}

/// The JSON object of a line.
pub fn line_json(fen: &str, l: &TbLine) -> Value {
    json!({
        "fen": fen,
        "wdl": l.wdl.value(),
        "dtz": l.dtz.0,
        "line": l.steps.iter().map(|s| json!({
            "uci": s.uci, "san": s.san, "zeroing": s.zeroing, "dtz": s.dtz.0,
        })).collect::<Vec<_>>(),
        "end": l.end.name(),
        "final_fen": l.final_fen,
    })
}

/// The text form of a line: `uci:`, `san:` and `end:` lines.
pub fn line_text(fen: &str, l: &TbLine) -> String {
    let join = |f: fn(&crate::tb::LineStep) -> &str| l.steps.iter().map(f).collect::<Vec<_>>().join(" ");
    format!(
        "fen: {fen}\nwdl: {} dtz: {}\nuci: {}\nsan: {}\nend: {} after {} plies ({})\n",
        l.wdl.value(),
        l.dtz.0,
        join(|s| &s.uci),
        join(|s| &s.san),
        l.end.name(),
        l.steps.len(),
        l.final_fen
    )
}
