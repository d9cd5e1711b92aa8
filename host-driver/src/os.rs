//! Every operating-system call the hardware backends make beyond plain file
//! access — opening device nodes, ioctls, mapping device regions, pinned
//! memory, page translation — behind one trait, so that tests can stand in
//! for the kernel ([`FakeOs`]) and check what the driver asks of it.

#![allow(unsafe_code)]

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::os::fd::{AsRawFd, FromRawFd};
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// A file the OS layer opened (an index into its table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fd(pub u32);

/// A mapping of device registers or memory: a pointer and a length that
/// stay valid as long as the mapping lives.
pub enum Mapping {
    Mmap(memmap2::MmapMut),
    Anon(memmap2::MmapMut),
}

impl std::fmt::Debug for Mapping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mapping({} bytes at {:p})", self.len(), self.as_ptr())
    }
}

impl Mapping {
    pub fn as_ptr(&self) -> *const u8 {
        match self {
            Mapping::Mmap(m) | Mapping::Anon(m) => m.as_ptr(),
        }
    }
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        match self {
            Mapping::Mmap(m) | Mapping::Anon(m) => m.as_mut_ptr(),
        }
    }
    pub fn len(&self) -> usize {
        match self {
            Mapping::Mmap(m) | Mapping::Anon(m) => m.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The mapped bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Mapping::Mmap(m) | Mapping::Anon(m) => m,
        }
    }
    /// The mapped bytes, writable.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        match self {
            Mapping::Mmap(m) | Mapping::Anon(m) => m,
        }
    }
}

/// The calls.
pub trait Os {
    /// Open a device node for reading and writing.
    fn open(&mut self, path: &Path) -> Result<Fd>;
    /// `ioctl(fd, request, value)`.
    fn ioctl_val(&mut self, fd: Fd, request: u64, value: u64) -> Result<i32>;
    /// `ioctl(fd, request, buf)`: the kernel reads and may write `buf`.
    ///
    /// # Safety
    ///
    /// `buf` must be at least as long as the structure `request` reads and
    /// writes, so that the kernel stays inside it; any address the
    /// structure holds must stay valid for as long as the kernel uses it
    /// (for `VFIO_IOMMU_MAP_DMA`, until the mapping is undone).
    unsafe fn ioctl_buf(&mut self, fd: Fd, request: u64, buf: &mut [u8]) -> Result<i32>;
    /// The kernel's number for `fd` (some ioctls take another descriptor).
    fn raw(&self, fd: Fd) -> i32;
    /// Adopt a file descriptor an ioctl returned: it is closed when this
    /// OS layer is dropped.
    ///
    /// # Safety
    ///
    /// `raw` must be an open descriptor that nothing else owns or closes.
    unsafe fn adopt(&mut self, raw: i32, what: &str) -> Result<Fd>;
    /// Map `len` bytes of `fd` at `offset`.
    fn map(&mut self, fd: Fd, offset: u64, len: usize) -> Result<Mapping>;
    /// Pinned anonymous memory, in 2 MiB huge pages if `huge`.
    fn alloc(&mut self, len: usize, huge: bool) -> Result<Mapping>;
    /// The 64-bit `/proc/self/pagemap` entry of virtual address `vaddr`.
    fn pagemap(&mut self, vaddr: u64) -> Result<u64>;
    /// The system's page size.
    fn page_size(&self) -> usize {
        4096
    }
}

fn io(what: impl std::fmt::Display) -> impl FnOnce(std::io::Error) -> Error {
    move |e| Error::Io { path: what.to_string(), source: e }
}

/// The real kernel.
#[derive(Debug, Default)]
pub struct RealOs {
    files: Vec<(File, String)>,
}

impl RealOs {
    fn file(&self, fd: Fd) -> Result<&(File, String)> {
        self.files.get(fd.0 as usize).ok_or_else(|| Error::BadRequest(format!("no open file {fd:?}")))
    }
}

impl Os for RealOs {
    fn open(&mut self, path: &Path) -> Result<Fd> {
        let f = OpenOptions::new().read(true).write(true).open(path).map_err(io(path.display()))?;
        self.files.push((f, path.display().to_string()));
        Ok(Fd(self.files.len() as u32 - 1))
    }

    fn ioctl_val(&mut self, fd: Fd, request: u64, value: u64) -> Result<i32> {
        let (f, name) = self.file(fd)?;
        // SAFETY: a value-argument ioctl reads no memory of ours.
        let r = unsafe { libc::ioctl(f.as_raw_fd(), request as _, value as libc::c_ulong) };
        if r < 0 {
            return Err(Error::Io {
                path: format!("{name}: ioctl {request:#x}"),
                source: std::io::Error::last_os_error(),
            });
        }
        Ok(r)
    }

    unsafe fn ioctl_buf(&mut self, fd: Fd, request: u64, buf: &mut [u8]) -> Result<i32> {
        let (f, name) = self.file(fd)?;
        // SAFETY: `buf` is a live, exclusively borrowed buffer at least as
        // long as the request's structure (this function's contract).
        let r = unsafe { libc::ioctl(f.as_raw_fd(), request as _, buf.as_mut_ptr()) };
        if r < 0 {
            return Err(Error::Io {
                path: format!("{name}: ioctl {request:#x}"),
                source: std::io::Error::last_os_error(),
            });
        }
        Ok(r)
    }

    fn raw(&self, fd: Fd) -> i32 {
        self.files.get(fd.0 as usize).map_or(-1, |f| f.0.as_raw_fd())
    }

    unsafe fn adopt(&mut self, raw: i32, what: &str) -> Result<Fd> {
        // SAFETY: `raw` is open and owned by nothing else (this function's
        // contract), so the File may close it.
        let f = unsafe { File::from_raw_fd(raw) };
        self.files.push((f, what.to_string()));
        Ok(Fd(self.files.len() as u32 - 1))
    }

    fn map(&mut self, fd: Fd, offset: u64, len: usize) -> Result<Mapping> {
        let (f, name) = self.file(fd)?;
        // SAFETY: a mapping of device registers, accessed only through
        // volatile 32-bit operations, living as long as the Mapping.
        let m = unsafe { memmap2::MmapOptions::new().offset(offset).len(len).map_mut(f) }.map_err(io(name))?;
        Ok(Mapping::Mmap(m))
    }

    fn alloc(&mut self, len: usize, huge: bool) -> Result<Mapping> {
        let mut o = memmap2::MmapOptions::new();
        o.len(len).populate();
        if huge {
            o.huge(Some(21));
        }
        let m = o.map_anon().map_err(io(if huge { "2 MiB huge pages (vm.nr_hugepages)" } else { "memory" }))?;
        m.lock().map_err(io("mlock of DMA memory (RLIMIT_MEMLOCK)"))?;
        Ok(Mapping::Anon(m))
    }

    fn pagemap(&mut self, vaddr: u64) -> Result<u64> {
        use std::os::unix::fs::FileExt;
        let f = File::open("/proc/self/pagemap").map_err(io("/proc/self/pagemap"))?;
        let mut b = [0u8; 8];
        f.read_exact_at(&mut b, vaddr / self.page_size() as u64 * 8).map_err(io("/proc/self/pagemap"))?;
        Ok(u64::from_le_bytes(b))
    }

    fn page_size(&self) -> usize {
        // SAFETY: sysconf has no memory effects.
        unsafe { libc::sysconf(libc::_SC_PAGESIZE) as usize }
    }
}

/// A stand-in kernel for tests: device nodes are files in a folder, ioctls
/// are answered by a closure and recorded, pagemap entries come from a table.
pub struct FakeOs {
    root: PathBuf,
    files: Vec<(File, PathBuf)>,
    /// (path of the fd, request, value or buffer) of every ioctl, in order.
    pub calls: Vec<(PathBuf, u64, Vec<u8>)>,
    /// Answers an ioctl: (path, request, buffer) -> return value, or an
    /// errno. It may fill the buffer.
    #[allow(clippy::type_complexity)]
    pub answer: Box<dyn FnMut(&Path, u64, &mut [u8]) -> std::result::Result<i32, i32>>,
    /// Pagemap entries by virtual page number; missing pages read as
    /// `default_page`.
    pub pages: HashMap<u64, u64>,
    pub default_page: u64,
}

impl std::fmt::Debug for FakeOs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeOs").field("root", &self.root).field("calls", &self.calls.len()).finish()
    }
}

impl FakeOs {
    /// Device nodes live under `root` (`/dev/vfio/3` is `root/dev/vfio/3`).
    pub fn new(root: &Path) -> FakeOs {
        FakeOs {
            root: root.to_path_buf(),
            files: Vec::new(),
            calls: Vec::new(),
            answer: Box::new(|_, _, _| Ok(0)),
            pages: HashMap::new(),
            default_page: 0,
        }
    }

    fn local(&self, path: &Path) -> PathBuf {
        self.root.join(path.strip_prefix("/").unwrap_or(path))
    }
}

impl Os for FakeOs {
    fn open(&mut self, path: &Path) -> Result<Fd> {
        let p = self.local(path);
        let f = OpenOptions::new().read(true).write(true).open(&p).map_err(io(path.display()))?;
        self.files.push((f, path.to_path_buf()));
        Ok(Fd(self.files.len() as u32 - 1))
    }

    fn ioctl_val(&mut self, fd: Fd, request: u64, value: u64) -> Result<i32> {
        let mut b = value.to_le_bytes();
        // SAFETY: the stand-in kernel only records and answers through `b`.
        unsafe { self.ioctl_buf(fd, request, &mut b) }
    }

    unsafe fn ioctl_buf(&mut self, fd: Fd, request: u64, buf: &mut [u8]) -> Result<i32> {
        let path =
            self.files.get(fd.0 as usize).map(|f| f.1.clone()).ok_or_else(|| Error::BadRequest("bad fd".into()))?;
        self.calls.push((path.clone(), request, buf.to_vec()));
        (self.answer)(&path, request, buf).map_err(|errno| Error::Io {
            path: format!("{}: ioctl {request:#x}", path.display()),
            source: std::io::Error::from_raw_os_error(errno),
        })
    }

    fn raw(&self, fd: Fd) -> i32 {
        100 + fd.0 as i32
    }

    unsafe fn adopt(&mut self, raw: i32, what: &str) -> Result<Fd> {
        // The fake's ioctls return descriptors as the name of a file under
        // root/fd/<raw>.
        let p = PathBuf::from(format!("/fd/{raw}"));
        let f = OpenOptions::new().read(true).write(true).open(self.local(&p)).map_err(io(what))?;
        self.files.push((f, p));
        Ok(Fd(self.files.len() as u32 - 1))
    }

    fn map(&mut self, fd: Fd, offset: u64, len: usize) -> Result<Mapping> {
        let (f, p) = self.files.get(fd.0 as usize).ok_or_else(|| Error::BadRequest("bad fd".into()))?;
        // SAFETY: a plain file standing in for a device, mapped while it lives.
        let m = unsafe { memmap2::MmapOptions::new().offset(offset).len(len).map_mut(f) }.map_err(io(p.display()))?;
        Ok(Mapping::Mmap(m))
    }

    fn alloc(&mut self, len: usize, _huge: bool) -> Result<Mapping> {
        Ok(Mapping::Anon(memmap2::MmapOptions::new().len(len).map_anon().map_err(io("memory"))?))
    }

    fn pagemap(&mut self, vaddr: u64) -> Result<u64> {
        Ok(self.pages.get(&(vaddr / 4096)).copied().unwrap_or(self.default_page))
    }
}
