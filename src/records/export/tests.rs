use super::*;
use crate::records::parse as parse_records;
use crate::records::tests::corpus;

fn export_text(data: &[u8], format: Format) -> Result<(String, ExportSummary), RecordError> {
    let mut out = Vec::new();
    let s = export(data, format, &mut out, &mut |_| {})?;
    Ok((String::from_utf8(out).unwrap(), s))
}

#[test]
fn bullet_text_has_a_checked_line_per_position_in_whites_view() {
    let (file, _) = corpus();
    let games = parse_records(&file).unwrap();
    let (text, summary) = export_text(&file, Format::BulletText).unwrap();
    let lines = bullet_text::parse(&text).unwrap();
    assert_eq!(lines.len() as u64, summary.positions);
    let mut i = 0;
    for g in &games {
        positions(g, |p| {
            let l = &lines[i];
            assert_eq!(l.board.fen(), p.board.fen());
            let white = if p.board.side_to_move() == Color::White { p.cp } else { -p.cp };
            assert_eq!(l.white_cp, white);
            assert_eq!(l.result, g.result);
            i += 1;
        });
    }
}

#[test]
fn sf_plain_entries_give_back_positions_moves_and_side_to_move_results() {
    let (file, _) = corpus();
    let games = parse_records(&file).unwrap();
    let (text, summary) = export_text(&file, Format::SfPlain).unwrap();
    let entries = sf_plain::parse(&text).unwrap();
    assert_eq!(entries.len() as u64, summary.positions);
    let mut i = 0;
    for g in &games {
        positions(g, |p| {
            let e = &entries[i];
            assert_eq!((e.board.fen(), e.mv, e.score), (p.board.fen(), p.mv, p.cp));
            assert_eq!(e.ply, p.board.game_ply());
            assert_eq!(e.result, sf_plain::stm_result(g.result, p.board.side_to_move()));
            i += 1;
        });
    }
}

#[test]
fn export_stops_at_a_damaged_game_with_its_offset() {
    let (file, _) = corpus();
    let cut = &file[..file.len() - 3];
    for format in [Format::Viriformat, Format::BulletText, Format::SfPlain] {
        let e = export_text(cut, format).unwrap_err();
        assert!(matches!(e, RecordError::Truncated { source, .. } if source.len == cut.len() as u64), "{e}");
    }
}
