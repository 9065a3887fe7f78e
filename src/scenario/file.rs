//! Reading a scenario or cast file from disk within a budget.
//!
//! A path on the command line may name anything: a directory, a named pipe
//! whose `open` waits for a writer that never comes, or a device such as
//! `/dev/zero` that never ends. Those that cannot be read as a file are
//! refused before they are opened; everything else is read up to
//! [`MAX_FILE_BYTES`], and a file that holds more is refused rather than
//! read to the end.

use std::fmt;
use std::io::{self, Read};
use std::path::Path;

/// The most a scenario or cast file may hold: 16 MiB, far above any real
/// one (the largest built-in scenario is a few kB, a long recorded session
/// a few MB).
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// A directory, not a file.
    Directory,
    /// A named pipe (FIFO) or a socket: opening or reading it could wait
    /// forever.
    Pipe,
    /// More than the budget; `limit` is the budget in bytes.
    TooLarge { limit: u64 },
    /// The file could not be opened or read.
    Io(io::Error),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Directory => write!(f, "it is a directory, not a file"),
            ReadError::Pipe => write!(
                f,
                "it is a named pipe or a socket, which could wait forever: give a regular file"
            ),
            ReadError::TooLarge { limit } => write!(
                f,
                "it holds more than {} MiB ({limit} bytes), the most a scenario or cast file may hold",
                limit / (1024 * 1024)
            ),
            ReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadError {}

/// The bytes of the file at `path`, at most `limit` of them; a directory,
/// a pipe or a socket is refused without being opened.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let meta = std::fs::metadata(path).map_err(ReadError::Io)?;
    if meta.is_dir() {
        return Err(ReadError::Directory);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = meta.file_type();
        if kind.is_fifo() || kind.is_socket() {
            return Err(ReadError::Pipe);
        }
    }
    if meta.is_file() && meta.len() > limit {
        return Err(ReadError::TooLarge { limit });
    }
    // Devices report no length (`/dev/zero`): read one byte past the
    // budget to tell "exactly the budget" from "more".
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { limit });
    }
    Ok(bytes)
}
