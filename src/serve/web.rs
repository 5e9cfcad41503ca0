//! `serve --web DIR`: the files of a static site (the browser build that
//! `make wasm` assembles in `target/web/`) under `/web/`.
//!
//! | request | answer |
//! |---|---|
//! | `GET /web` | 308 to `/web/` (the page's relative URLs need the slash) |
//! | `GET /web/`, `/web/sub/` | the folder's `index.html` |
//! | `GET /web/PATH` | the file `DIR/PATH` with its content type ([`content_type`]) |
//!
//! Only files under DIR are served ([`resolve`]): a request path is split
//! at `/` and refused (404, like a missing file) when a segment is empty,
//! starts with `.` (`.`, `..`, hidden files), or holds `\`, `:` or NUL, so
//! no request names an absolute path or a parent; the file found is then
//! resolved through its links and must still lie inside DIR (a link out of
//! the site is 404 too) and be a plain file. DIR itself is resolved once at
//! start ([`open_root`]), which fails when it is not a directory. Files
//! are read on the blocking pool, whole, and sent with `Cache-Control:
//! no-cache` so a rebuilt site is picked up at once.

use super::{blocking, ApiError, State};
use axum::extract::{Path as UrlPath, State as Shared};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, X_CONTENT_TYPE_OPTIONS};
use axum::response::{IntoResponse, Redirect, Response};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The file a folder's URL (`…/`) serves.
pub const INDEX: &str = "index.html";

/// DIR made absolute through its links, or why it cannot be served.
pub fn open_root(dir: &Path) -> Result<PathBuf, String> {
    let root = std::fs::canonicalize(dir).map_err(|e| e.to_string())?;
    if !root.is_dir() {
        return Err("not a directory".into());
    }
    if !root.join(INDEX).is_file() {
        tracing::warn!("{}: no {INDEX} (GET /web/ will be 404)", dir.display());
    }
    Ok(root)
}

/// The relative path a request names (the part after `/web/`,
/// percent-decoded), by the module's rules; `None` when it is refused. A
/// path that is empty or ends in `/` names the folder's [`INDEX`].
pub fn relative_path(request: &str) -> Option<PathBuf> {
    let (folders, file) = match request.rsplit_once('/') {
        Some((folders, file)) => (Some(folders), file),
        None => (None, request),
    };
    let mut out = PathBuf::new();
    for segment in folders.into_iter().flat_map(|f| f.split('/')) {
        out.push(checked(segment)?);
    }
    out.push(if file.is_empty() { INDEX } else { checked(file)? });
    Some(out)
}

fn checked(segment: &str) -> Option<&str> {
    let bad = segment.is_empty() || segment.starts_with('.') || segment.contains(['\\', ':', '\0']);
    (!bad).then_some(segment)
}

/// The file under `root` (as [`open_root`] gives it) that `request` names,
/// when it exists, is a plain file and, links followed, lies inside `root`.
pub fn resolve(root: &Path, request: &str) -> Option<PathBuf> {
    let path = std::fs::canonicalize(root.join(relative_path(request)?)).ok()?;
    (path.starts_with(root) && path.is_file()).then_some(path)
}

/// The `Content-Type` of a file, by its extension.
pub fn content_type(path: &Path) -> &'static str {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("html" | "htm") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("json" | "map") => "application/json",
        Some("css") => "text/css; charset=utf-8",
        Some("txt" | "md") => "text/plain; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        _ => "application/octet-stream",
    }
}

/// `GET /web`.
pub async fn redirect() -> Redirect {
    Redirect::permanent("/web/")
}

/// `GET /web/`.
pub async fn index(state: Shared<Arc<State>>) -> Response {
    serve(state, String::new()).await
}

/// `GET /web/{*path}`.
pub async fn file(state: Shared<Arc<State>>, UrlPath(request): UrlPath<String>) -> Response {
    serve(state, request).await
}

async fn serve(Shared(state): Shared<Arc<State>>, request: String) -> Response {
    if state.web.is_none() {
        return ApiError::NotFound("no site (serve --web DIR)").into_response();
    }
    let read = blocking(&state, move |s| {
        let root = s.web.as_deref()?;
        let path = resolve(root, &request)?;
        std::fs::read(&path).ok().map(|bytes| (content_type(&path), bytes))
    });
    match read.await {
        Ok(Some((kind, bytes))) => {
            let headers = [(CONTENT_TYPE, kind), (CACHE_CONTROL, "no-cache"), (X_CONTENT_TYPE_OPTIONS, "nosniff")];
            (headers, bytes).into_response()
        }
        Ok(None) => ApiError::NotFound("no such file").into_response(),
        Err(e) => e.into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_name_their_index_and_files_themselves() {
        assert_eq!(relative_path(""), Some(PathBuf::from("index.html")));
        assert_eq!(relative_path("sub/"), Some(PathBuf::from("sub/index.html")));
        assert_eq!(relative_path("archivist.js"), Some(PathBuf::from("archivist.js")));
        assert_eq!(relative_path("a/b/c.wasm"), Some(PathBuf::from("a/b/c.wasm")));
    }

    #[test]
    fn parents_absolute_paths_hidden_files_and_odd_segments_are_refused() {
        for bad in [
            "..",
            "../etc/passwd",
            "a/../../b",
            "a/..",
            "./index.html",
            "a/./b",
            "/etc/passwd",
            "//etc/passwd",
            "a//b",
            ".git/config",
            ".env",
            "..\\secret",
            "a\\b",
            "C:/windows",
            "c:",
            "a\0b",
        ] {
            assert_eq!(relative_path(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn content_types_follow_the_extension() {
        let of = |name: &str| content_type(Path::new(name));
        assert_eq!(of("index.html"), "text/html; charset=utf-8");
        assert_eq!(of("archivist.js"), "text/javascript; charset=utf-8");
        assert_eq!(of("x.MJS"), "text/javascript; charset=utf-8");
        assert_eq!(of("archivist.wasm"), "application/wasm");
        assert_eq!(of("package.json"), "application/json");
        assert_eq!(of("page.css"), "text/css; charset=utf-8");
        assert_eq!(of("book.bin"), "application/octet-stream");
        assert_eq!(of("README"), "application/octet-stream");
    }

    /// A site with a page, a folder, and beside it a file that must not be
    /// reachable (also not through a link inside the site).
    fn site(tag: &str) -> (PathBuf, PathBuf) {
        let base = std::env::temp_dir().join(format!("archivist-web-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let root = base.join("site");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("index.html"), "<p>page</p>").unwrap();
        std::fs::write(root.join("sub/index.html"), "<p>sub</p>").unwrap();
        std::fs::write(root.join("archivist.wasm"), b"\0asm").unwrap();
        std::fs::write(base.join("secret.txt"), "secret").unwrap();
        (base, root)
    }

    #[test]
    fn files_inside_the_root_resolve_and_nothing_outside_does() {
        let (base, dir) = site("resolve");
        let root = open_root(&dir).unwrap();
        assert_eq!(resolve(&root, ""), Some(root.join("index.html")));
        assert_eq!(resolve(&root, "sub/"), Some(root.join("sub/index.html")));
        assert_eq!(resolve(&root, "archivist.wasm"), Some(root.join("archivist.wasm")));
        // Missing files, folders without the slash, parents.
        assert_eq!(resolve(&root, "missing.js"), None);
        assert_eq!(resolve(&root, "sub"), None);
        assert_eq!(resolve(&root, "../secret.txt"), None);
        assert_eq!(resolve(&root, "sub/../../secret.txt"), None);
        assert_eq!(resolve(&root, base.join("secret.txt").to_str().unwrap()), None);
        #[cfg(unix)]
        {
            // A link inside the site that points out of it.
            std::os::unix::fs::symlink(base.join("secret.txt"), root.join("out.txt")).unwrap();
            std::os::unix::fs::symlink(&base, root.join("up")).unwrap();
            assert_eq!(resolve(&root, "out.txt"), None);
            assert_eq!(resolve(&root, "up/secret.txt"), None);
            // A link that stays inside is followed.
            std::os::unix::fs::symlink(root.join("sub/index.html"), root.join("alias.html")).unwrap();
            assert_eq!(resolve(&root, "alias.html"), Some(root.join("sub/index.html")));
        }
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn the_root_must_be_a_directory() {
        let (base, dir) = site("root");
        assert!(open_root(&dir).is_ok());
        assert_eq!(open_root(&dir.join("index.html")), Err("not a directory".to_string()));
        assert!(open_root(&base.join("missing")).is_err());
        std::fs::remove_dir_all(&base).unwrap();
    }
}
