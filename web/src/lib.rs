//! The WebAssembly boundary of `archivist::web`: plain numbers and byte
//! ranges in linear memory, called by `web/js/archivist.js` (which is the
//! interface people use; README.md, "In the browser").
//!
//! | export | arguments | returns | result text / bytes |
//! |---|---|---|---|
//! | `arch_alloc` | `len` | a pointer to `len` bytes for the caller to fill | |
//! | `arch_free` | `ptr, len` | nothing (frees a block no call took over) | |
//! | `arch_book_open` | `ptr, len` (the book), `ptr, len` (its file name, empty when unknown) | a handle > 0, or 0 on error | the error's message |
//! | `arch_book_format` | `handle` | 1, or −1 for an unknown handle | the format's name |
//! | `arch_book_probe` | `handle, ptr, len` (the FEN) | 1 answer, 0 null, −1 error | JSON answer or message |
//! | `arch_book_close` | `handle` | nothing | |
//! | `arch_convert` | `ptr, len` (the book), `ptr, len` (`to`), `ptr, len` (its file name, empty when unknown) | 1, or −1 on error | report line or message; bytes: the converted book |
//! | `arch_search` | `ptr, len` (the FEN), `kind` (0 depth, 1 movetime in ms, 2 nodes), `value` | 1, or −1 on error | JSON answer or message |
//! | `arch_bench` | | the `bench` node count | |
//! | `arch_moves` | `ptr, len` (the FEN) | 1, or −1 on error | JSON array of `{uci, san, fen}` (the legal moves, the FEN after each) or message |
//! | `arch_result_ptr`, `arch_result_len` | | the last call's text (UTF-8) | |
//! | `arch_bytes_ptr`, `arch_bytes_len` | | the last conversion's bytes | |
//!
//! Every `ptr, len` argument is memory from `arch_alloc` that the call
//! takes over (and frees): the caller never frees it. The result stays
//! valid until the next call. Imports, module `archivist`: `now() → f64`
//! (milliseconds, for the search's clock) and `info(ptr, len)` (a completed
//! iteration's JSON during `arch_search`, for a worker to post).
//!
//! One thread, so the state is thread-local.

use archivist::web::{self, SearchLimit, WebBook};
use std::cell::RefCell;
use std::collections::HashMap;

#[derive(Default)]
struct State {
    books: HashMap<u32, WebBook>,
    next_handle: u32,
    result: Vec<u8>,
    bytes: Vec<u8>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State { next_handle: 1, ..State::default() });
}

#[link(wasm_import_module = "archivist")]
extern "C" {
    fn info(ptr: *const u8, len: usize);
}

fn set_result(text: impl Into<Vec<u8>>) {
    STATE.with(|s| s.borrow_mut().result = text.into());
}

/// Takes over `len` bytes at `ptr` that [`arch_alloc`] handed out.
fn take(ptr: *mut u8, len: usize) -> Vec<u8> {
    // SAFETY: the boundary's contract (module doc): `ptr` and `len` are a
    // block `arch_alloc(len)` returned, filled by the caller and handed to
    // this call, which now owns it; a boxed slice is rebuilt with exactly
    // the layout it was allocated with.
    unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)) }.into_vec()
}

/// A call's JSON answer (1) or its error's message (−1) as the result.
fn reply_json<T: serde::Serialize>(answer: Result<T, web::WebError>) -> i32 {
    match answer {
        Ok(answer) => {
            set_result(serde_json::to_string(&answer).unwrap_or_default());
            1
        }
        Err(e) => {
            set_result(e.to_string());
            -1
        }
    }
}

/// [`take_string`] of a file name: `None` when empty (unknown).
fn take_name(ptr: *mut u8, len: usize) -> Option<String> {
    Some(take_string(ptr, len)).filter(|n| !n.is_empty())
}

/// [`take`] as text (kept in place when it is UTF-8, as JavaScript's
/// `TextEncoder` always writes).
fn take_string(ptr: *mut u8, len: usize) -> String {
    String::from_utf8(take(ptr, len)).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// `len` bytes for the caller to fill and pass to one call.
#[no_mangle]
pub extern "C" fn arch_alloc(len: usize) -> *mut u8 {
    Box::into_raw(vec![0u8; len].into_boxed_slice()).cast::<u8>()
}

/// Frees a block from [`arch_alloc`] that no call took over.
#[no_mangle]
pub extern "C" fn arch_free(ptr: *mut u8, len: usize) {
    drop(take(ptr, len));
}

#[no_mangle]
pub extern "C" fn arch_result_ptr() -> *const u8 {
    STATE.with(|s| s.borrow().result.as_ptr())
}

#[no_mangle]
pub extern "C" fn arch_result_len() -> usize {
    STATE.with(|s| s.borrow().result.len())
}

#[no_mangle]
pub extern "C" fn arch_bytes_ptr() -> *const u8 {
    STATE.with(|s| s.borrow().bytes.as_ptr())
}

#[no_mangle]
pub extern "C" fn arch_bytes_len() -> usize {
    STATE.with(|s| s.borrow().bytes.len())
}

#[no_mangle]
pub extern "C" fn arch_book_open(ptr: *mut u8, len: usize, name_ptr: *mut u8, name_len: usize) -> u32 {
    let name = take_name(name_ptr, name_len);
    match WebBook::open(take(ptr, len), name.as_deref()) {
        Ok(book) => STATE.with(|s| {
            let mut s = s.borrow_mut();
            let handle = s.next_handle;
            s.next_handle = s.next_handle.wrapping_add(1).max(1);
            s.books.insert(handle, book);
            handle
        }),
        Err(e) => {
            set_result(e.to_string());
            0
        }
    }
}

#[no_mangle]
pub extern "C" fn arch_book_format(handle: u32) -> i32 {
    let name = STATE.with(|s| s.borrow().books.get(&handle).map(|b| b.format().to_string()));
    match name {
        Some(name) => {
            set_result(name);
            1
        }
        None => {
            set_result(format!("no open book {handle}"));
            -1
        }
    }
}

#[no_mangle]
pub extern "C" fn arch_book_probe(handle: u32, ptr: *mut u8, len: usize) -> i32 {
    let fen = take_string(ptr, len);
    let answer = STATE.with(|s| s.borrow().books.get(&handle).map(|b| b.probe(&fen)));
    match answer {
        Some(Ok(Some(json))) => {
            set_result(json);
            1
        }
        Some(Ok(None)) => {
            set_result("null");
            0
        }
        Some(Err(e)) => {
            set_result(e.to_string());
            -1
        }
        None => {
            set_result(format!("no open book {handle}"));
            -1
        }
    }
}

#[no_mangle]
pub extern "C" fn arch_book_close(handle: u32) {
    STATE.with(|s| s.borrow_mut().books.remove(&handle));
}

#[no_mangle]
pub extern "C" fn arch_convert(
    ptr: *mut u8,
    len: usize,
    to_ptr: *mut u8,
    to_len: usize,
    name_ptr: *mut u8,
    name_len: usize,
) -> i32 {
    let bytes = take(ptr, len);
    let to = take_string(to_ptr, to_len);
    let name = take_name(name_ptr, name_len);
    match web::convert(bytes, &to, name.as_deref()) {
        Ok((out, report)) => {
            STATE.with(|s| {
                let mut s = s.borrow_mut();
                s.bytes = out;
                s.result = report.into_bytes();
            });
            1
        }
        Err(e) => {
            STATE.with(|s| s.borrow_mut().bytes = Vec::new());
            set_result(e.to_string());
            -1
        }
    }
}

#[no_mangle]
pub extern "C" fn arch_search(ptr: *mut u8, len: usize, kind: u32, value: f64) -> i32 {
    let fen = take_string(ptr, len);
    let limit = match kind {
        0 => SearchLimit::Depth(value as i32),
        1 => SearchLimit::MoveTime(value as u64),
        2 => SearchLimit::Nodes(value as u64),
        _ => {
            set_result(format!("unknown search limit kind {kind}"));
            return -1;
        }
    };
    let post = |answer: &web::SearchAnswer| {
        let text = serde_json::to_string(answer).unwrap_or_default();
        // SAFETY: `info` is the host's import; it reads `len` bytes at
        // `ptr` during the call, while `text` is alive.
        unsafe { info(text.as_ptr(), text.len()) }
    };
    reply_json(web::search(&fen, limit, post))
}

#[no_mangle]
pub extern "C" fn arch_moves(ptr: *mut u8, len: usize) -> i32 {
    reply_json(web::moves(&take_string(ptr, len)))
}

#[no_mangle]
pub extern "C" fn arch_bench() -> f64 {
    web::bench() as f64
}
