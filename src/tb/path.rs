//! Splitting a `SyzygyPath` value into directories.
//!
//! Stockfish separates directories with `;` on Windows and `:` elsewhere,
//! and GUIs (and configuration files shared between machines) send either.
//! The rule here:
//!
//! * On Windows only `;` separates: `:` belongs to drive letters
//!   (`C:\tb\wdl;D:\tb\dtz`).
//! * Elsewhere both `:` and `;` separate (`/tb/wdl:/tb/dtz`,
//!   `/tb/wdl;/tb/dtz`), unless the text holds a Windows drive letter: an
//!   ASCII letter, `:` and `\` or `/`, at the start of the text or right
//!   after a `;` (`C:\tb`, `d:/tb`). Such a text is a Windows list and only
//!   `;` separates it, so `C:\tb;D:\tb` is read as two directories, never as
//!   `C`, `\tb;D` and `\tb`.
//!
//! Directories are trimmed of surrounding whitespace and empty ones are
//! dropped (`/tb::/more;` is two directories).

/// The directories of `text` under the separator rule of `windows` (see the
/// module documentation).
pub fn split_dirs(text: &str, windows: bool) -> Vec<&str> {
    let semicolon_only = windows || has_drive_letter(text);
    text.split(|c| c == ';' || (c == ':' && !semicolon_only)).map(str::trim).filter(|d| !d.is_empty()).collect()
}

/// The directories of `text` on this platform.
pub fn split_search_path(text: &str) -> Vec<&str> {
    split_dirs(text, cfg!(windows))
}

/// Does some `;`-separated part of `text` start with a drive letter
/// (`C:\`, `c:/`)?
fn has_drive_letter(text: &str) -> bool {
    text.split(';').any(|part| {
        let b = part.trim_start().as_bytes();
        matches!(b, [letter, b':', b'\\' | b'/', ..] if letter.is_ascii_alphabetic())
    })
}

#[cfg(test)]
mod tests {
    use super::split_dirs;

    #[test]
    fn colon_and_semicolon_both_separate_on_unix() {
        assert_eq!(split_dirs("/tb/wdl:/tb/dtz", false), ["/tb/wdl", "/tb/dtz"]);
        assert_eq!(split_dirs("/tb/wdl;/tb/dtz", false), ["/tb/wdl", "/tb/dtz"]);
        assert_eq!(split_dirs("/a;/b:/c", false), ["/a", "/b", "/c"]);
    }

    #[test]
    fn drive_letters_make_the_text_a_windows_list_on_unix() {
        assert_eq!(split_dirs(r"C:\tb\wdl;D:\tb\dtz", false), [r"C:\tb\wdl", r"D:\tb\dtz"]);
        assert_eq!(split_dirs("c:/tb;/mnt/tb", false), ["c:/tb", "/mnt/tb"]);
        // A letter and a colon not followed by a slash is no drive letter.
        assert_eq!(split_dirs("a:b;c", false), ["a", "b", "c"]);
    }

    #[test]
    fn only_semicolons_separate_on_windows() {
        assert_eq!(split_dirs(r"C:\tb\wdl;D:\tb\dtz", true), [r"C:\tb\wdl", r"D:\tb\dtz"]);
        assert_eq!(split_dirs(r"C:\tb", true), [r"C:\tb"]);
        assert_eq!(split_dirs("/a:/b", true), ["/a:/b"]);
    }

    #[test]
    fn empty_parts_and_whitespace_are_dropped() {
        assert_eq!(split_dirs(" /a ::/b; ;", false), ["/a", "/b"]);
        assert!(split_dirs("", false).is_empty());
        assert!(split_dirs(";;", true).is_empty());
    }
}
