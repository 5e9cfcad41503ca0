//! Text views of a position for people: the ASCII diagram of UCI `d` and
//! the `Fen:`/`Key:`/`Polyglot key:`/`Legal moves:` report shared by `d`
//! and `archivist show`.

use super::zobrist::polyglot_key;
use super::Board;
use crate::types::Square;

impl Board {
    /// ASCII board, rank 8 at the top, as UCI `d` prints it.
    pub fn diagram(&self) -> String {
        let mut s = String::from(" +---+---+---+---+---+---+---+---+\n");
        for rank in (0..8).rev() {
            for file in 0..8 {
                let c = self.piece_on(Square::from_coords(file, rank)).map_or(' ', |p| p.char());
                s.push_str(&format!(" | {c}"));
            }
            s.push_str(&format!(" | {}\n +---+---+---+---+---+---+---+---+\n", rank + 1));
        }
        s.push_str("   a   b   c   d   e   f   g   h\n");
        s
    }

    /// `Fen:`, `Key:`, `Polyglot key:` and `Legal moves:` lines.
    pub fn describe(&self) -> String {
        format!(
            "Fen: {}\nKey: {:016X}\nPolyglot key: {:016x}\nLegal moves: {}",
            self.fen(),
            self.key(),
            polyglot_key(self),
            self.count_legal()
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::board::Board;

    #[test]
    fn describe_reports_fen_keys_and_move_count_of_the_start_position() {
        let d = Board::startpos().describe();
        assert!(d.starts_with("Fen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n"), "{d}");
        // The seed's Polyglot key of the start position.
        assert!(d.contains("Polyglot key: 463b96181691fc9c"), "{d}");
        assert!(d.ends_with("Legal moves: 20"), "{d}");
    }

    #[test]
    fn diagram_puts_rank_eight_on_top() {
        let d = Board::startpos().diagram();
        let lines: Vec<&str> = d.lines().collect();
        assert_eq!(lines[1], " | r | n | b | q | k | b | n | r | 8");
        assert_eq!(lines[15], " | R | N | B | Q | K | B | N | R | 1");
    }
}
