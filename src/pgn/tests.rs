use super::*;

const KINGS: &str = "[Event \"x\"]\n[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n\n";

#[test]
fn skips_variations_by_default_and_keeps_the_main_line() {
    let text = format!("{KINGS}1. Kb1 {{c}} (1. Ka2 (1. Kb2)) 1... Kg1 $1 ; rest\n%escaped 9. Qh5\n2. Kc1 1/2-1/2\n");
    let games = parse(&text);
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].moves, vec!["Kb1", "Kg1", "Kc1"]);
    assert_eq!(games[0].result.as_deref(), Some("1/2-1/2"));
    assert_eq!(games[0].tag("Event"), Some("x"));
    assert!(games[0].notes.iter().all(|n| n.variations.is_empty()));
    assert!(games[0].replay().is_ok());
}

#[test]
fn keeps_comments_verbatim_beside_their_move() {
    let text = format!("{KINGS}{{ before }} 1. Kb1 {{ [%eval 0.35] [%clk 0:01:00] }} Kg1 ; to the end\n2. Kc1 *\n");
    let g = &parse(&text)[0];
    assert_eq!(g.intro, vec![Comment(" before ".into())]);
    assert_eq!(g.notes.len(), 3);
    assert_eq!(g.notes[0].comments, vec![Comment(" [%eval 0.35] [%clk 0:01:00] ".into())]);
    assert_eq!(g.notes[1].comments, vec![Comment(" to the end".into())]);
    assert!(g.notes[2].comments.is_empty());
}

#[test]
fn reads_nags_and_move_suffixes_as_nag_numbers() {
    let text = format!("{KINGS}1. Kb1! Kg1? 2. Kc1!! Kh1?? 3. Kd1!? Kg1?! 4. Kc2 $14 $32 *");
    let g = &parse(&text)[0];
    assert_eq!(g.moves, vec!["Kb1", "Kg1", "Kc1", "Kh1", "Kd1", "Kg1", "Kc2"]);
    let nags: Vec<Vec<u8>> = g.notes.iter().map(|n| n.nags.clone()).collect();
    assert_eq!(nags, vec![vec![1], vec![2], vec![3], vec![4], vec![5], vec![6], vec![14, 32]]);
    assert!(g.replay().is_ok());
}

#[test]
fn keeps_nested_variations_when_asked() {
    let text = format!("{KINGS}1. Kb1 (1. Ka2 {{alt}} Kg2 (1... Kh2)) 1... Kg1 *");
    let g = &parse_with(&text, ReadOptions { variations: true, ..ReadOptions::default() })[0];
    assert_eq!(g.moves, vec!["Kb1", "Kg1"]);
    let v = &g.notes[0].variations;
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].moves, vec!["Ka2", "Kg2"]);
    assert_eq!(v[0].notes[0].comments, vec![Comment("alt".into())]);
    assert_eq!(v[0].notes[1].variations[0].moves, vec!["Kh2"]);
    assert!(g.notes[1].variations.is_empty());
}

#[test]
fn a_tag_section_without_a_result_starts_a_new_game() {
    let games = parse("[White \"a\"]\n1. e4 e5\n[White \"b\"]\n1. d4 1-0\n");
    assert_eq!(games.len(), 2);
    assert_eq!((games[0].result.as_deref(), games[1].moves.len()), (None, 1));
    assert_eq!((games[0].source.index, games[1].source.index), (1, 2));
}

#[test]
fn reads_eval_commands_in_pawns_and_mates() {
    let c = |s: &str| Comment(s.into());
    assert_eq!(c(" [%eval 0.35] ").eval(), Some(Eval::Cp(35)));
    assert_eq!(c("[%eval -1.2,18]").eval(), Some(Eval::Cp(-120)));
    assert_eq!(c("[%eval -1.2,18]").depth(), Some(18));
    assert_eq!(c("[%clk 0:00:05] [%eval #-3]").eval(), Some(Eval::Mate(-3)));
    assert_eq!(c("[%eval #4]").eval(), Some(Eval::Mate(4)));
    assert_eq!(c("[%eval x]").eval(), None);
}

#[test]
fn reads_engine_score_comments() {
    let c = |s: &str| Comment(s.into());
    assert_eq!(c("+0.35/12 0.8s").eval(), Some(Eval::Cp(35)));
    assert_eq!(c("+0.35/12 0.8s").depth(), Some(12));
    assert_eq!(c("-1.20/15").eval(), Some(Eval::Cp(-120)));
    assert_eq!(c("+M5/20 0.1s").eval(), Some(Eval::Mate(5)));
    assert_eq!(c("-M3/9").eval(), Some(Eval::Mate(-3)));
    assert_eq!(c("book").eval(), None);
    assert!(c(" book ").is_book());
    assert_eq!(c("0.00/1").eval(), Some(Eval::Cp(0)));
    assert_eq!(c("1/2 of the time").eval(), None);
    assert_eq!(c("White wins 3/4 of these").eval(), None);
}

#[test]
fn replay_error_names_game_and_ply_of_an_illegal_move() {
    let games = parse("1. e4 e5 *\n\n1. e4 e5 2. Ke3 *");
    let err = games[1].replay().unwrap_err();
    assert!(matches!(&err, ReplayError::IllegalMove { game, ply: 3, san, .. } if game.index == 2 && san == "Ke3"));
    assert_eq!(err.game().index, 2);
    assert!(err.to_string().starts_with("game 2, ply 3: illegal move 'Ke3'"), "{err}");
}

#[test]
fn replay_error_names_the_file_it_was_read_from() {
    let dir = std::env::temp_dir().join(format!("archivist-pgn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.pgn");
    std::fs::write(&path, "[FEN \"bad\"]\n1. e4 *\n").unwrap();
    let games = read_file(&path, ReadOptions::default()).unwrap();
    let err = games[0].replay().unwrap_err();
    assert!(matches!(&err, ReplayError::BadStart { .. }));
    assert!(err.to_string().starts_with(&format!("{}: game 1: bad FEN tag", path.display())), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn replay_honours_fen_and_limits_the_plies() {
    let g = &parse(&format!("{KINGS}1. Kb1 Kg1 2. Kc1 *"))[0];
    let r = g.replay().unwrap();
    assert_eq!(r.start.fen(), "8/8/8/8/8/8/8/K6k w - - 0 1");
    assert_eq!(r.moves.len(), 3);
    assert_eq!(r.plies().count(), 3);
    let mut seen = 0;
    let after_two = g.replay_first(2, |_, _| seen += 1).unwrap();
    assert_eq!((seen, after_two.fen()), (2, "8/8/8/8/8/8/8/1K4k1 w - - 2 2".to_string()));
}

proptest::proptest! {
    #[test]
    fn reading_any_text_never_panics(text in "[\\[\\]{}();%$!?.0-9a-hKQRBNOx+#\"=/* \n-]{0,200}") {
        for variations in [false, true] {
            for g in parse_with(&text, ReadOptions { variations, ..ReadOptions::default() }) {
                proptest::prop_assert_eq!(g.moves.len(), g.notes.len());
                let _ = g.replay();
                for c in g.notes.iter().flat_map(|n| &n.comments) {
                    let _ = (c.eval(), c.depth());
                }
            }
        }
    }
}

#[test]
fn moves_are_held_inline_and_a_token_longer_than_any_san_is_kept_whole() {
    let long = "Nf3thisisnotamoveatall";
    let games = parse(&format!("1. e4 e5 2. {long} *\n"));
    assert_eq!(games[0].moves, ["e4", "e5", long]);
    assert_eq!(SanText::new("exd8=Q#").as_str(), "exd8=Q#");
    assert_eq!(format!("{:?}", games[0].moves[2]), format!("{long:?}"));
    match games[0].replay() {
        Err(ReplayError::IllegalMove { ply: 3, san, .. }) => assert_eq!(san, long),
        other => panic!("expected the long token as an illegal move, got {other:?}"),
    }
}

#[test]
fn skip_notes_keeps_the_moves_and_tags_and_drops_comments_nags_and_variations() {
    let text = format!("{KINGS}{{ intro }} 1. Kb1! {{ [%clk 0:01:00] }} (1. Ka2) Kg1 $3 ; rest\n2. Kc1 1-0\n");
    let options = ReadOptions { variations: true, skip_notes: true };
    let g = &parse_with(&text, options)[0];
    let full = &parse_with(&text, ReadOptions { variations: true, ..ReadOptions::default() })[0];
    assert_eq!(g.moves, full.moves);
    assert_eq!((g.tags.clone(), g.result.clone()), (full.tags.clone(), full.result.clone()));
    assert!(g.notes.is_empty() && g.intro.is_empty(), "{g:?}");
    assert_eq!(full.notes[0].nags, [1]);
}

#[test]
fn any_unicode_space_separates_moves() {
    let text = format!("{KINGS}1.\u{a0}Kb1\u{2003}Kg1\t2.\u{3000}Kc1 é *");
    let g = &parse(&text)[0];
    assert_eq!(g.moves, vec!["Kb1", "Kg1", "Kc1", "é"]);
}

/// The in-place reader sees exactly the games the whole reader builds.
fn views_match_games(text: &str) {
    let games = parse_with(text, ReadOptions { skip_notes: true, ..ReadOptions::default() });
    let mut n = 0;
    for_each_game(text, |view| {
        let g = &games[n];
        n += 1;
        assert_eq!(view.number(), n);
        assert!(view.tags().eq(g.tags.iter().map(|(k, v)| (k.as_str(), v.as_str()))), "game {n} tags");
        assert!(view.moves().iter().copied().eq(g.moves.iter().map(|m| m.as_str())), "game {n} moves");
        assert_eq!(view.result(), g.result.as_deref(), "game {n} result");
        assert_eq!(view.is_chess960(), g.is_chess960());
        let mut board = Board::startpos();
        let mut seen = Vec::new();
        let got = view.replay_first(&mut board, &Board::startpos(), 1000, || g.source.clone(), |_, m| seen.push(m));
        let mut want_moves = Vec::new();
        let want = g.replay_first(1000, |_, m| want_moves.push(m));
        match (got, want) {
            (Ok(()), Ok(end)) => assert_eq!((board.fen(), seen), (end.fen(), want_moves)),
            (Err(a), Err(b)) => assert_eq!(a, b),
            (a, b) => panic!("game {n}: {a:?} vs {b:?}"),
        }
    });
    assert_eq!(n, games.len());
}

#[test]
fn views_see_the_games_the_reader_builds() {
    views_match_games(&format!(
        "{KINGS}1. Kb1 {{c [x]}} (1. Ka2 (1. Kb2)) 1... Kg1 $1 ; rest\n%escaped 9. Qh5\n2. Kc1!? 1/2-1/2\n"
    ));
    views_match_games("1. e4 e5 *\n[Event \"a \\\"q\\\"\"]\n[White \"w\"]\n\n1. d4 2. Ke3 1-0\n[Event \"b\"]\n\n1. c4 (1. d4 [x]) 1... e5\n[FEN \"bad\"]\n\n1. e4\n");
    views_match_games("");
    views_match_games("[Variant \"Chess960\"]\n[FEN \"nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w KQkq - 0 1\"]\n\n1. d4 d5 2. c3 Nb6 0-1\n");
    for name in ["stockfish-selfplay-200.pgn", "cutechess-fischerrandom.pgn", "kasparov-deep-blue-1997.pgn"] {
        if let Some(path) = crate::testdata::path(&format!("pgn/{name}")) {
            views_match_games(&String::from_utf8_lossy(&std::fs::read(path).unwrap()));
        }
    }
}

/// Records what the tokenizer hands its sink, with runs of spaces
/// squeezed to one (inside comments and tags).
#[derive(Default)]
struct Recorder {
    calls: Vec<String>,
    in_moves: bool,
    depth: usize,
}

impl<'t> read::Sink<'t> for Recorder {
    fn in_moves(&self) -> bool {
        self.in_moves
    }
    fn in_variation(&self) -> bool {
        self.depth > 0
    }
    fn token(&mut self, t: &'t str) {
        self.in_moves = true;
        self.calls.push(format!("token {t}"));
    }
    fn tag(&mut self, inner: &'t str) {
        self.in_moves = false;
        self.calls.push(format!("tag {}", inner.split(' ').filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")));
    }
    fn comment(&mut self, text: &'t str) {
        self.calls.push(format!("comment {}", text.split(' ').filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")));
    }
    fn open_variation(&mut self) {
        self.depth += 1;
        self.calls.push("(".into());
    }
    fn close_variation(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        self.calls.push(")".into());
    }
}

fn tokens(text: &str) -> Vec<String> {
    let mut r = Recorder::default();
    read::tokenize(text, &mut r);
    r.calls
}

#[test]
fn movetext_tokens_cross_the_64_byte_masks() {
    let moves: Vec<String> = (1..=40).map(|n| format!("{n}. Nf3 Nf6")).collect();
    let text = moves.join(" ");
    let want: Vec<String> = text.split(' ').map(|t| format!("token {t}")).collect();
    // Every offset, so that tokens and their spaces fall on every place of a block.
    for lead in 0..70 {
        let padded = format!("{}{text}", " ".repeat(lead));
        assert_eq!(tokens(&padded), want, "{lead} leading spaces");
    }
}

proptest::proptest! {
    /// One space between tokens takes the tokenizer's fast path, two
    /// spaces its general step: they must cut the text alike.
    #[test]
    fn one_space_or_two_between_tokens_cut_alike(text in "([a-hNBRQKxO0-9+#=.!?-]{1,6}[ \n{}();%\\[\\]\"]?){0,120}") {
        proptest::prop_assert_eq!(tokens(&text), tokens(&text.replace(' ', "  ")));
    }
}

/// The tags of real files (and those a tag section may hold at worst):
/// the canonical form's shortcut takes the first ones and gives what the
/// general reading gives.
#[test]
fn canonical_tags_read_as_the_general_path_reads_them() {
    for inner in
        ["Event \"Rated Blitz game\"", "WhiteElo \"1884\"", "Date \"2023.01.15\"", "Annotator \"\"", "X_1 \"a\"b\""]
    {
        assert!(read::canonical_tag_pair(inner).is_some(), "{inner}");
        assert_eq!(read::tag_pair(inner), read::any_tag_pair(inner), "{inner}");
    }
    for inner in [
        " Event \"x\"",
        "Event  \"x\"",
        "Event\t\"x\"",
        "Event \"\"x\"\"",
        "Event \"x\\\"y\"",
        "Event \"x\" ",
        "Event \"",
        "Event x",
        "Évent \"x\"",
        "\"x\"",
    ] {
        assert!(read::canonical_tag_pair(inner).is_none(), "{inner}");
        assert_eq!(read::tag_pair(inner), read::any_tag_pair(inner), "{inner}");
    }
}

proptest::proptest! {
    /// Whatever a tag section holds, the shortcut for the canonical form
    /// and the general reading give the same name and value.
    #[test]
    fn tag_pairs_read_alike_by_either_path(inner in "[A-Za-z0-9_ \t\"\\\\\u{a0}\u{3000}é-]{0,14}") {
        proptest::prop_assert_eq!(read::tag_pair(&inner), read::any_tag_pair(&inner));
    }

    /// The same for texts of the canonical shape, with quotes, escapes and
    /// spaces where they make a difference.
    #[test]
    fn canonical_looking_tags_read_alike(name in "[A-Za-z0-9_]{0,6}", value in "[a-z \"\\\\\u{a0}]{0,8}") {
        let inner = format!("{name} \"{value}\"");
        proptest::prop_assert_eq!(read::tag_pair(&inner), read::any_tag_pair(&inner));
    }
}

#[test]
fn outcome_takes_the_result_tag_then_the_marker_and_reports_a_disagreement() {
    use super::{outcome, Outcome};
    let o = |token, disagrees| Outcome { token, disagrees };
    assert_eq!(outcome(Some("1-0"), Some("1-0")), o(Some("1-0"), false));
    assert_eq!(outcome(Some("1-0"), Some("0-1")), o(Some("1-0"), true), "the tag wins a disagreement");
    assert_eq!(outcome(Some("*"), Some("0-1")), o(Some("0-1"), false), "a * tag defers to the marker");
    assert_eq!(outcome(None, Some("1/2-1/2")), o(Some("1/2-1/2"), false));
    assert_eq!(outcome(Some("1/2-1/2"), None), o(Some("1/2-1/2"), false), "movetext cut before its marker");
    assert_eq!(outcome(Some("1-0"), Some("*")), o(Some("1-0"), false));
    assert_eq!(outcome(Some("*"), Some("*")), o(Some("*"), false));
    assert_eq!(outcome(None, None), o(None, false));
    // Read from a game: tagless movetext, and a tag the marker contradicts.
    let games = super::parse("1. e4 e5 0-1\n\n[Result \"1-0\"]\n\n1. d4 d5 0-1\n");
    fn of(g: &super::Game) -> Outcome<'_> {
        outcome(g.tag("Result"), g.result.as_deref())
    }
    assert_eq!((of(&games[0]), of(&games[1])), (o(Some("0-1"), false), o(Some("1-0"), true)));
}
