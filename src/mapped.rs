//! Read-only memory maps of files: the only place the crate calls
//! `memmap2::Mmap::map`.
//!
//! Books (YACB, Polyglot), saved hash files (SFTT), game records and Syzygy
//! tables are read through maps so that a lookup touches only the pages it
//! needs. Every reader then treats the map as untrusted `&[u8]`: all access
//! is bounds-checked and every malformed byte is a typed error.
//!
//! The one hazard that no reader can check is another process truncating or
//! rewriting a mapped file while it is mapped: the kernel then raises
//! `SIGBUS` on the next access to a vanished page. The engine never writes
//! a file it has mapped (its own writers replace files by rename, which
//! leaves existing maps on the old inode), so only an outside program can
//! cause that, as for every mmap-based engine or prober.

use memmap2::Mmap;
use std::fs::File;
use std::io;

/// Maps the whole of `file` read-only. An empty file gives an empty map.
pub fn map_file(file: &File) -> io::Result<Mmap> {
    // SAFETY: the map is read-only and private to this process, and is only
    // ever read as `&[u8]` through bounds-checked slices. The remaining
    // hazard, another process truncating the file while it is mapped, is
    // the documented contract of this module (see the module doc).
    unsafe { Mmap::map(file) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn maps_the_whole_file_read_only() {
        let path = std::env::temp_dir().join(format!("archivist-mapped-{}", std::process::id()));
        std::fs::write(&path, b"archivist").unwrap();
        let map = super::map_file(&std::fs::File::open(&path).unwrap()).unwrap();
        assert_eq!(&map[..], b"archivist");
        drop(map);
        std::fs::remove_file(&path).unwrap();
    }
}
