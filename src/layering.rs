//! The layer table of `lib.rs`, held: every `crate::…` path in the code
//! of a top-level module (comments and test code left out) names a module
//! the table lets it use.
//!
//! The table's language: rows from the lowest layer up; in a row, chains
//! separated by `,` or `;`, each a sequence of groups joined by `→`, a group
//! one module or `{a, b}`. A module may use the modules of the rows above
//! its own and those of the groups before its own in its chains (a module
//! may stand in several); nothing else of its own row.

use std::collections::{HashMap, HashSet};
use std::path::Path;

/// The modules each module may use, from the table in `lib.rs`'s docs.
fn allowed(lib: &str) -> HashMap<String, HashSet<String>> {
    let mut allowed = HashMap::new();
    let mut below: HashSet<String> = HashSet::new();
    for row in lib.lines().filter_map(|l| l.strip_prefix("//! |")).filter(|l| l.contains('`')) {
        let Some((_, modules)) = row.split_once('|') else { continue };
        let mut in_row = HashSet::new();
        for chain in split_top(modules) {
            let mut before: HashSet<String> = HashSet::new();
            for group in chain.split('→') {
                let names = names(group);
                for n in &names {
                    let may = allowed.entry(n.clone()).or_insert_with(|| below.clone());
                    may.extend(before.iter().cloned());
                }
                before.extend(names);
            }
            in_row.extend(before);
        }
        below.extend(in_row);
    }
    allowed
}

/// `text` split at the commas and semicolons outside braces.
fn split_top(text: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0);
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' | ';' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out
}

/// The names in backticks of `text`.
fn names(text: &str) -> Vec<String> {
    text.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

/// The code of a file without its comments and its trailing test module.
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") && lines.peek().is_some_and(|n| n.trim_start().starts_with("mod ")) {
            // An inline test module runs to the end of the file by the
            // house convention; a `mod tests;` line is a file of its own.
            if lines.peek().is_some_and(|n| n.contains('{')) {
                break;
            }
            lines.next();
            continue;
        }
        if !t.starts_with("//") {
            out.push_str(line.split("//").next().unwrap_or(""));
            out.push('\n');
        }
    }
    out
}

/// Every `.rs` file of module `name` but its test files.
fn files(src: &Path, name: &str) -> Vec<std::path::PathBuf> {
    let mut out = vec![src.join(format!("{name}.rs"))];
    let mut dirs = vec![src.join(name)];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            let file = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if p.is_dir() {
                dirs.push(p);
            } else if file.ends_with(".rs") && file != "tests.rs" && !file.ends_with("_tests.rs") {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn every_module_uses_only_what_the_layer_table_allows() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let allowed = allowed(&lib);
    let declared: Vec<String> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod ").and_then(|r| r.strip_suffix(';')))
        .map(str::to_string)
        .filter(|m| m != "testdata")
        .collect();
    let mut wrong = Vec::new();
    for m in &declared {
        let Some(may) = allowed.get(m) else {
            wrong.push(format!("{m}: not in the layer table"));
            continue;
        };
        for f in files(&src, m) {
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            for used in code(&text).split("crate::").skip(1) {
                let used: String = used.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if used != *m && declared.contains(&used) && !may.contains(&used) {
                    wrong.push(format!("{}: {m} uses {used}", f.display()));
                }
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(wrong.is_empty(), "imports against lib.rs's layer table:\n{}", wrong.join("\n"));
}

#[test]
fn the_table_language_reads_chains_and_groups() {
    let lib = "//! | layer | modules |\n//! | a | `x` → `y` → {`z`, `w`}; `v` → `w` |\n//! | b | `u` |\n";
    let a = allowed(lib);
    assert!(a["x"].is_empty() && a["v"].is_empty());
    assert_eq!(a["w"].len(), 3, "x and y of one chain, v of the other");
    assert_eq!(a["y"], HashSet::from(["x".to_string()]));
    assert_eq!(a["z"], HashSet::from(["x".to_string(), "y".to_string()]));
    assert!(!a["z"].contains("w") && !a["y"].contains("v"));
    assert_eq!(a["u"].len(), 5);
}

#[test]
fn the_book_rooms_import_only_the_rooms_before_them() {
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join("book");
    let rooms = ["format", "play", "tools"];
    let mut wrong = Vec::new();
    for (i, room) in rooms.iter().enumerate() {
        for f in files(&book, room) {
            let code = code(&std::fs::read_to_string(&f).unwrap_or_default());
            for later in &rooms[i + 1..] {
                if code.contains(&format!("crate::book::{later}")) || code.contains(&format!("super::{later}")) {
                    wrong.push(format!("{}: {room} uses {later}", f.display()));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
