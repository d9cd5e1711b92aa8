//! Serial lines: a tty (a USB UART such as the ECPIX-5's FTDI channel) set
//! to raw 8N1 at a chosen speed, and pseudo-terminals (a simulated board's
//! serial line, [`Pty`]). Both are [`ByteLink`]s.

#![allow(unsafe_code)]

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::board::ByteLink;
use crate::{Error, Result};

fn sys(what: &str, path: &Path) -> Error {
    Error::Io { path: format!("{what} {}", path.display()), source: std::io::Error::last_os_error() }
}

/// termios's name for `baud`, if it is a standard speed.
fn speed(baud: u32) -> Option<libc::speed_t> {
    Some(match baud {
        9600 => libc::B9600,
        19200 => libc::B19200,
        38400 => libc::B38400,
        57600 => libc::B57600,
        115200 => libc::B115200,
        230400 => libc::B230400,
        460800 => libc::B460800,
        921600 => libc::B921600,
        1000000 => libc::B1000000,
        2000000 => libc::B2000000,
        3000000 => libc::B3000000,
        _ => return None,
    })
}

/// The standard speeds [`Serial::open`] takes.
pub const SPEEDS: &[u32] = &[9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600, 1000000, 2000000, 3000000];

/// Put the terminal `f` in raw mode (8N1, no flow control, no echo, no
/// translation), at `baud` if given.
fn make_raw(f: &File, path: &Path, baud: Option<u32>) -> Result<()> {
    // SAFETY: termios is plain old data; tcgetattr fills it from the open
    // descriptor `f`, and every call gets a pointer to this local.
    unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        if libc::tcgetattr(f.as_raw_fd(), &mut t) != 0 {
            return Err(sys("tcgetattr on", path));
        }
        libc::cfmakeraw(&mut t);
        t.c_cflag |= libc::CLOCAL | libc::CREAD;
        t.c_cflag &= !(libc::CRTSCTS | libc::CSTOPB | libc::PARENB);
        t.c_iflag &= !(libc::IXON | libc::IXOFF);
        t.c_cc[libc::VMIN] = 0;
        t.c_cc[libc::VTIME] = 0;
        if let Some(b) = baud {
            let s = speed(b).ok_or_else(|| {
                Error::BadRequest(format!(
                    "{b} baud is not a standard speed ({})",
                    SPEEDS.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
                ))
            })?;
            if libc::cfsetispeed(&mut t, s) != 0 || libc::cfsetospeed(&mut t, s) != 0 {
                return Err(sys("setting the speed of", path));
            }
        }
        if libc::tcsetattr(f.as_raw_fd(), libc::TCSANOW, &t) != 0 {
            return Err(sys("tcsetattr on", path));
        }
        // Whatever the line held before us is not an answer to anything.
        libc::tcflush(f.as_raw_fd(), libc::TCIOFLUSH);
    }
    Ok(())
}

/// Wait until `f` has bytes to read, at most `left`; false on time-out.
fn readable(f: &File, left: Duration) -> Result<bool> {
    let mut p = libc::pollfd { fd: f.as_raw_fd(), events: libc::POLLIN, revents: 0 };
    let ms = left.as_millis().min(i32::MAX as u128) as i32;
    // SAFETY: one pollfd, passed with its count.
    let n = unsafe { libc::poll(&mut p, 1, ms) };
    if n < 0 {
        let e = std::io::Error::last_os_error();
        if e.kind() == std::io::ErrorKind::Interrupted {
            return Ok(false);
        }
        return Err(Error::Io { path: "poll".into(), source: e });
    }
    Ok(n > 0)
}

/// Read exactly `buf.len()` bytes from `f` within `timeout`.
fn read_exact_within(f: &mut File, path: &Path, buf: &mut [u8], timeout: Duration) -> Result<()> {
    let deadline = Instant::now() + timeout;
    let mut got = 0;
    while got < buf.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || !readable(f, left)? {
            return Err(Error::Timeout(format!(
                "{} of {} bytes from {} within {timeout:?}",
                got,
                buf.len(),
                path.display()
            )));
        }
        match f.read(&mut buf[got..]) {
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(Error::Io { path: path.display().to_string(), source: e }),
        }
    }
    Ok(())
}

/// A serial port in raw 8N1 mode.
#[derive(Debug)]
pub struct Serial {
    file: File,
    path: PathBuf,
    baud: u32,
    /// Longest wait for an answer's bytes, beyond the time the line needs
    /// for what was sent before the question.
    pub timeout: Duration,
    /// Bytes sent since the last answer: the board works through them
    /// before it answers.
    backlog: usize,
}

impl Serial {
    /// Open `path` at `baud` (one of [`SPEEDS`]), raw 8N1, no flow
    /// control; answers are awaited at most `timeout`.
    pub fn open(path: &Path, baud: u32, timeout: Duration) -> Result<Serial> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
            .open(path)
            .map_err(|source| Error::Io { path: path.display().to_string(), source })?;
        make_raw(&file, path, Some(baud))?;
        Ok(Serial { file, path: path.to_path_buf(), baud, timeout, backlog: 0 })
    }
}

impl ByteLink for Serial {
    fn send(&mut self, bytes: &[u8]) -> Result<()> {
        self.backlog += bytes.len();
        let mut at = 0;
        while at < bytes.len() {
            match self.file.write(&bytes[at..]) {
                Ok(n) => at += n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_micros(200));
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::Io { path: self.path.display().to_string(), source: e }),
            }
        }
        Ok(())
    }

    fn recv(&mut self, buf: &mut [u8]) -> Result<()> {
        // Ten bits a character, both ways.
        let line = Duration::from_secs_f64(10.0 * (self.backlog + buf.len()) as f64 / self.baud as f64);
        self.backlog = 0;
        read_exact_within(&mut self.file, &self.path, buf, self.timeout + line)
    }
}

/// A pseudo-terminal: the master end (held by whoever plays the far end of
/// the line, e.g. a simulated board) and the path of its slave end (what a
/// program opens as its serial port). The slave is kept open here in raw
/// mode, so the line survives programs opening and closing it.
#[derive(Debug)]
pub struct Pty {
    master: File,
    _slave: File,
    path: PathBuf,
}

impl Pty {
    /// A new pseudo-terminal in raw mode.
    pub fn open() -> Result<Pty> {
        let here = Path::new("/dev/ptmx");
        // SAFETY: posix_openpt returns a new descriptor or -1; on success it
        // is owned here (OwnedFd) and closed on every path.
        let fd = unsafe { libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_NONBLOCK) };
        if fd < 0 {
            return Err(sys("posix_openpt", here));
        }
        // SAFETY: `fd` was just opened and is owned by nobody else.
        let master = File::from(unsafe { OwnedFd::from_raw_fd(fd) });
        let mut name = [0u8; 128];
        // SAFETY: grantpt/unlockpt take the master descriptor; ptsname_r
        // writes at most `name.len()` bytes into `name`.
        unsafe {
            if libc::grantpt(fd) != 0 || libc::unlockpt(fd) != 0 {
                return Err(sys("unlocking", here));
            }
            if libc::ptsname_r(fd, name.as_mut_ptr().cast(), name.len()) != 0 {
                return Err(sys("ptsname of", here));
            }
        }
        let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
        let path = PathBuf::from(String::from_utf8_lossy(&name[..end]).into_owned());
        let slave = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
            .open(&path)
            .map_err(|source| Error::Io { path: path.display().to_string(), source })?;
        make_raw(&slave, &path, None)?;
        Ok(Pty { master, _slave: slave, path })
    }

    /// The slave end's path (`/dev/pts/N`), to open as a serial port.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes written to the slave end so far (none: empty), without waiting.
    pub fn take(&mut self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match self.master.read(&mut buf) {
                Ok(0) => return Ok(out),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Ok(out),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                // EIO: no process has the slave open besides us; nothing to read.
                Err(e) if e.raw_os_error() == Some(libc::EIO) => return Ok(out),
                Err(e) => return Err(Error::Io { path: "pty master".into(), source: e }),
            }
        }
    }

    /// Bytes for the slave end to read.
    pub fn give(&mut self, bytes: &[u8]) -> Result<()> {
        let mut at = 0;
        while at < bytes.len() {
            match self.master.write(&bytes[at..]) {
                Ok(n) => at += n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_micros(200));
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::Io { path: "pty master".into(), source: e }),
            }
        }
        Ok(())
    }
}
