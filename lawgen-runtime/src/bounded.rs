//! Reading input files with a size limit that holds while reading.
//!
//! Every file lawgen and generated programs open as input (packages, imports,
//! facts, expectations, suite files) is read through [`read_file`] or wrapped
//! in a [`Bounded`] reader. Neither trusts the size the file system reports:
//! a symbolic link to `/dev/zero`, a FIFO or a file that grows while it is
//! read has none, or a wrong one. Reading stops one byte past the limit, so
//! an oversized input costs at most `limit + 1` bytes of memory and is
//! refused at once, whatever it is.

use std::fmt;
use std::io::{self, Read};
use std::path::Path;

/// An input was larger than its limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLarge {
    /// The limit, in bytes.
    pub limit: u64,
    /// The size the file system reported for a regular file, when it was
    /// refused before reading; `None` when reading stopped at the limit.
    pub size: Option<u64>,
}

impl fmt::Display for TooLarge {
    /// `5000 bytes, more than the limit of 1000 bytes`, or, when reading
    /// stopped at the limit, `more than the limit of 1000 bytes`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.size {
            Some(size) => write!(
                f,
                "{size} bytes, more than the limit of {} bytes",
                self.limit
            ),
            None => write!(f, "more than the limit of {} bytes", self.limit),
        }
    }
}

impl std::error::Error for TooLarge {}

/// Why [`read_file`] returned no bytes.
#[derive(Debug)]
pub enum ReadError {
    /// The file could not be opened or read.
    Io(io::Error),
    /// The file holds more than the limit.
    TooLarge(TooLarge),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => e.fmt(f),
            ReadError::TooLarge(t) => write!(f, "the file is {t}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        ReadError::Io(e)
    }
}

/// Reads a whole file of at most `limit` bytes. A regular file whose size
/// is over the limit is refused before any byte is read; anything else
/// (a device, a FIFO, a file that grows) is refused as soon as byte
/// `limit + 1` arrives. A directory is an `Io` error (`EISDIR`), as with
/// `std::fs::read`.
pub fn read_file(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(ReadError::Io(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        )));
    }
    let known = meta.is_file().then_some(meta.len());
    if let Some(size) = known.filter(|&s| s > limit) {
        return Err(ReadError::TooLarge(TooLarge {
            limit,
            size: Some(size),
        }));
    }
    // The reported size only sizes the first allocation; it is not trusted.
    let hint = known.unwrap_or(0).min(limit).min(1 << 26) as usize;
    let bytes = read_capped(file, limit, hint)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(TooLarge { limit, size: None }));
    }
    Ok(bytes)
}

/// Reads `r` to its end or to byte `limit + 1`, whichever comes first.
/// The buffer is grown only once more bytes have arrived (a full buffer is
/// probed with a small one first), by doubling but never past `limit + 1`
/// bytes: a file that fits its size hint costs no more than its bytes, and
/// an oversized input `limit + 1` bytes, not the next power of two.
fn read_capped(mut r: impl Read, limit: u64, hint: usize) -> io::Result<Vec<u8>> {
    let cap = limit.saturating_add(1).min(usize::MAX as u64) as usize;
    let mut buf: Vec<u8> = Vec::new();
    buf.reserve_exact(hint.min(cap));
    let mut probe = [0u8; 8192];
    let mut len = 0;
    loop {
        let read = if len < buf.len() {
            r.read(&mut buf[len..])
        } else if len >= cap {
            break;
        } else {
            r.read(&mut probe)
        };
        let n = match read {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if len < buf.len() {
            len += n;
            continue;
        }
        let take = n.min(cap - len);
        let grow = if buf.capacity() > len {
            buf.capacity() - len
        } else {
            len.max(probe.len()).min(cap - len)
        }
        .max(take);
        buf.reserve_exact(grow);
        buf.resize(len + grow, 0);
        buf[len..len + take].copy_from_slice(&probe[..take]);
        len += take;
    }
    buf.truncate(len);
    Ok(buf)
}

/// A reader that passes at most `limit` bytes through and fails with an
/// error (and [`Bounded::exceeded`] set) when the input holds more: for
/// inputs read as a stream (facts files), which are never held whole.
#[derive(Debug)]
pub struct Bounded<R> {
    inner: R,
    limit: u64,
    left: u64,
    exceeded: bool,
}

impl<R: Read> Bounded<R> {
    /// Passes at most `limit` bytes of `inner` through.
    pub fn new(inner: R, limit: u64) -> Self {
        Bounded {
            inner,
            limit,
            left: limit,
            exceeded: false,
        }
    }

    /// `Some` once the input was found to hold more than the limit: the
    /// error a reading function got from this reader means this, not a
    /// malformed input.
    pub fn exceeded(&self) -> Option<TooLarge> {
        self.exceeded.then_some(TooLarge {
            limit: self.limit,
            size: None,
        })
    }
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            // At the limit: one more byte means the input is too large.
            let mut probe = [0u8; 1];
            let n = loop {
                match self.inner.read(&mut probe) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    r => break r?,
                }
            };
            if n == 0 {
                return Ok(0);
            }
            self.exceeded = true;
            return Err(io::Error::other(TooLarge {
                limit: self.limit,
                size: None,
            }));
        }
        let max = buf.len().min(self.left.min(usize::MAX as u64) as usize);
        let n = self.inner.read(&mut buf[..max])?;
        self.left -= n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("lawgen-bounded-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_file_up_to_the_limit_is_read_whole() {
        let dir = scratch("exact");
        let p = dir.join("f");
        std::fs::write(&p, b"0123456789").unwrap();
        assert_eq!(read_file(&p, 10).unwrap(), b"0123456789");
        assert_eq!(read_file(&p, 100).unwrap(), b"0123456789");
        match read_file(&p, 9) {
            Err(ReadError::TooLarge(t)) => {
                assert_eq!(
                    t,
                    TooLarge {
                        limit: 9,
                        size: Some(10)
                    }
                );
                assert_eq!(t.to_string(), "10 bytes, more than the limit of 9 bytes");
            }
            other => panic!("{other:?}"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn an_endless_device_stops_at_the_limit() {
        let dir = scratch("zero");
        let link = dir.join("zero.json");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        match read_file(&link, 1000) {
            Err(ReadError::TooLarge(t)) => {
                assert_eq!(t.to_string(), "more than the limit of 1000 bytes")
            }
            other => panic!("{other:?}"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_directory_is_an_io_error() {
        let dir = scratch("dir");
        assert!(matches!(read_file(&dir, 10), Err(ReadError::Io(_))));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn reading_stops_one_byte_past_the_limit_and_allocates_no_more() {
        let v = read_capped(io::repeat(7), 100_000, 0).unwrap();
        assert_eq!(v.len(), 100_001);
        assert!(v.capacity() <= 100_001, "{}", v.capacity());
        let v = read_capped(&b"abc"[..], 3, 3).unwrap();
        assert_eq!((v.as_slice(), v.capacity()), (&b"abc"[..], 3));
        let v = read_capped(&b"abcd"[..], 3, 0).unwrap();
        assert_eq!(v, b"abcd");
        let data: Vec<u8> = (0..50_000u32).map(|i| i as u8).collect();
        assert_eq!(read_capped(&data[..], 1 << 20, 0).unwrap(), data);
        assert_eq!(read_capped(&data[..], 1 << 20, 50_000).unwrap(), data);
    }

    #[test]
    fn a_stream_fails_one_byte_past_the_limit() {
        let mut r = Bounded::new(&b"abcdef"[..], 6);
        let mut out = Vec::new();
        r.read_to_end(&mut out).unwrap();
        assert_eq!(out, b"abcdef");
        assert!(r.exceeded().is_none());
        let mut r = Bounded::new(&b"abcdefg"[..], 6);
        let mut out = Vec::new();
        assert!(r.read_to_end(&mut out).is_err());
        assert_eq!(out.len(), 6);
        assert!(r.exceeded().is_some());
        // Endless input: stopped after the limit.
        let mut r = Bounded::new(io::repeat(0), 1 << 16);
        let mut out = Vec::new();
        assert!(r.read_to_end(&mut out).is_err());
        assert_eq!(out.len(), 1 << 16);
    }
}
