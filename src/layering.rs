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

/// Every `.rs` file of module `name` but its test files (`tests.rs`,
/// `*_tests.rs` and the files of a `tests/` folder).
fn files(src: &Path, name: &str) -> Vec<std::path::PathBuf> {
    let mut out = vec![src.join(format!("{name}.rs"))];
    let mut dirs = vec![src.join(name)];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            let file = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if p.is_dir() {
                // A test module's own files (`tests/damage.rs`) are test code.
                if file != "tests" {
                    dirs.push(p);
                }
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

/// The first path segment of each item of a `use` group or path that
/// starts `text` (after a `::`): `data::X` gives `data`, `{data::{X, Y},
/// grad}` gives `data` and `grad`.
fn first_segments(text: &str) -> Vec<String> {
    let text = text.trim_start();
    let ident = |t: &str| -> String { t.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect() };
    let Some(group) = text.strip_prefix('{') else { return vec![ident(text)] };
    let mut depth = 1;
    let end = group
        .char_indices()
        .find(|&(_, c)| {
            depth += match c {
                '{' => 1,
                '}' => -1,
                _ => 0,
            };
            depth == 0
        })
        .map_or(group.len(), |(i, _)| i);
    split_top(&group[..end]).iter().map(|item| ident(item.trim_start())).collect()
}

/// The sibling submodules each submodule of module `name` (a path under
/// `src/`, `book/format`; its submodules are the files under `src/<name>/`)
/// uses, by `crate::<name>::…` or by as many `super::` as lead from its
/// file up to `name`.
fn sibling_uses(src: &Path, name: &str) -> HashMap<String, HashSet<String>> {
    let dir = src.join(name);
    let subs: HashSet<String> = files(src, name)
        .iter()
        .filter_map(|f| f.strip_prefix(&dir).ok())
        .filter_map(|rel| rel.components().next())
        .map(|c| c.as_os_str().to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    let mut uses: HashMap<String, HashSet<String>> = HashMap::new();
    for f in files(src, name) {
        let Ok(rel) = f.strip_prefix(&dir) else { continue };
        let Some(sub) = rel.components().next() else { continue };
        let sub = sub.as_os_str().to_string_lossy().trim_end_matches(".rs").to_string();
        let depth = rel.components().count();
        let code = code(&std::fs::read_to_string(&f).unwrap_or_default());
        let up = "super::".repeat(depth);
        let mut found = Vec::new();
        for (i, _) in code.match_indices(&up) {
            // `up` exactly: not the tail of a longer run of `super::`.
            if code[..i].ends_with("super::") || code[i + up.len()..].starts_with("super::") {
                continue;
            }
            found.extend(first_segments(&code[i + up.len()..]));
        }
        for part in code.split(&format!("crate::{}::", name.replace('/', "::"))).skip(1) {
            found.extend(first_segments(part));
        }
        let entry = uses.entry(sub.clone()).or_default();
        entry.extend(found.into_iter().filter(|t| *t != sub && subs.contains(t)));
    }
    uses
}

/// One cycle of `graph` (its modules in order, the first again at the end),
/// if it has any.
fn a_cycle(graph: &HashMap<String, HashSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &HashMap<String, HashSet<String>>,
        path: &mut Vec<String>,
        done: &mut HashSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == n) {
            let mut cycle = path[i..].to_vec();
            cycle.push(n.to_string());
            return Some(cycle);
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_string());
        let mut next: Vec<&String> = graph.get(n).map(|s| s.iter().collect()).unwrap_or_default();
        next.sort();
        for m in next {
            if let Some(cycle) = visit(m, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(n.to_string());
        None
    }
    let mut nodes: Vec<&String> = graph.keys().collect();
    nodes.sort();
    let mut done = HashSet::new();
    nodes.into_iter().find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_two_submodules_of_a_module_import_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    // Every module with a folder, at any depth.
    let mut modules: Vec<String> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod ").and_then(|r| r.strip_suffix(';')))
        .map(str::to_string)
        .collect();
    let mut wrong = Vec::new();
    let mut edges = 0;
    while let Some(m) = modules.pop() {
        let uses = sibling_uses(&src, &m);
        edges += uses.values().map(HashSet::len).sum::<usize>();
        if let Some(cycle) = a_cycle(&uses) {
            wrong.push(format!("{}: {}", m.replace('/', "::"), cycle.join(" → ")));
        }
        modules.extend(uses.keys().filter(|s| src.join(&m).join(s).is_dir()).map(|s| format!("{m}/{s}")));
    }
    // The reading finds the imports there are (book's rooms alone have dozens).
    assert!(edges > 50, "{edges} imports between siblings found");
    assert!(wrong.is_empty(), "submodules that import each other, in a circle:\n{}", wrong.join("\n"));
}

#[test]
fn sibling_uses_reads_super_paths_groups_and_crate_paths() {
    assert_eq!(first_segments("data::{Sample, other}; x"), ["data"]);
    assert_eq!(first_segments("{data::{Sample, other}, grad, Error};"), ["data", "grad", "Error"]);
    let graph = |edges: &[(&str, &str)]| {
        let mut g: HashMap<String, HashSet<String>> = HashMap::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
        }
        g
    };
    assert_eq!(a_cycle(&graph(&[("a", "b"), ("b", "c")])), None);
    assert_eq!(a_cycle(&graph(&[("grad", "data"), ("data", "grad")])).unwrap(), ["data", "grad", "data"]);
    assert_eq!(a_cycle(&graph(&[("a", "b"), ("b", "c"), ("c", "b")])).unwrap(), ["b", "c", "b"]);
}
