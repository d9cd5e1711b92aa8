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

/// A mapping of device registers or memory. The device may read and write
/// its bytes at any time, so they are never handed out as a Rust slice:
/// every access is volatile, through [`Mapping::read32`],
/// [`Mapping::write32`], [`Mapping::read`] and [`Mapping::write`], and
/// checked to stay inside the mapping.
pub struct Mapping(memmap2::MmapMut);

impl std::fmt::Debug for Mapping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mapping({} bytes at {:p})", self.len(), self.as_ptr())
    }
}

impl Mapping {
    /// The address of byte 0 in this process (for the kernel: an IOMMU
    /// mapping, a page-table look-up), valid while the mapping lives.
    pub fn as_ptr(&self) -> *const u8 {
        self.0.as_ptr()
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `offset` if `len` bytes from it are inside the mapping and it is a
    /// multiple of `align`.
    fn span(&self, offset: usize, len: usize, align: usize) -> Option<usize> {
        (offset % align == 0 && offset.checked_add(len).is_some_and(|end| end <= self.len())).then_some(offset)
    }

    /// The little-endian 32-bit word at `offset` in one access (a device
    /// register), or `None` if it is misaligned or outside.
    pub fn read32(&self, offset: usize) -> Option<u32> {
        let o = self.span(offset, 4, 4)?;
        // SAFETY: `o` is 4-byte aligned (the mapping starts on a page) and
        // its 4 bytes are inside the mapping, which lives as long as `self`.
        Some(u32::from_le(unsafe { std::ptr::read_volatile(self.0.as_ptr().add(o) as *const u32) }))
    }

    /// Write the 32-bit word at `offset` in one access; `None` if it is
    /// misaligned or outside.
    pub fn write32(&mut self, offset: usize, value: u32) -> Option<()> {
        let o = self.span(offset, 4, 4)?;
        // SAFETY: as in read32; `&mut self` makes this the only access from
        // this process.
        unsafe { std::ptr::write_volatile(self.0.as_mut_ptr().add(o) as *mut u32, value.to_le()) };
        Some(())
    }

    /// Copy `buf.len()` bytes from `offset` out; `None` if they are not
    /// all inside.
    pub fn read(&self, offset: usize, buf: &mut [u8]) -> Option<()> {
        let o = self.span(offset, buf.len(), 1)?;
        for (i, b) in buf.iter_mut().enumerate() {
            // SAFETY: byte `o + i` is inside the mapping (checked above).
            *b = unsafe { std::ptr::read_volatile(self.0.as_ptr().add(o + i)) };
        }
        Some(())
    }

    /// Copy `data` in at `offset`; `None` if it does not all fit.
    pub fn write(&mut self, offset: usize, data: &[u8]) -> Option<()> {
        let o = self.span(offset, data.len(), 1)?;
        let p = self.0.as_mut_ptr();
        for (i, &b) in data.iter().enumerate() {
            // SAFETY: byte `o + i` is inside the mapping (checked above).
            unsafe { std::ptr::write_volatile(p.add(o + i), b) };
        }
        Some(())
    }
}

/// An ioctl request that takes its argument by value, so the kernel reads
/// no memory of ours for it and [`Os::ioctl_val`] is safe to call. Only
/// [`ValueIoctl::new`], which is unsafe, makes one: the promise about the
/// request is made once, where its number is defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValueIoctl(u64);

impl ValueIoctl {
    /// # Safety
    ///
    /// `request` must be an ioctl whose argument is an integer (or none),
    /// never an address, for every file it may be called on.
    pub const unsafe fn new(request: u64) -> ValueIoctl {
        ValueIoctl(request)
    }

    /// The request number.
    pub const fn request(self) -> u64 {
        self.0
    }
}

/// The calls.
pub trait Os {
    /// Open a device node for reading and writing.
    fn open(&mut self, path: &Path) -> Result<Fd>;
    /// `ioctl(fd, request, value)`.
    fn ioctl_val(&mut self, fd: Fd, request: ValueIoctl, value: u64) -> Result<i32>;
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

    fn ioctl_val(&mut self, fd: Fd, request: ValueIoctl, value: u64) -> Result<i32> {
        let (f, name) = self.file(fd)?;
        let request = request.request();
        // SAFETY: a ValueIoctl takes its argument by value (the promise of
        // ValueIoctl::new), so the kernel reads no memory of ours.
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
        // SAFETY: the bytes are reached only through Mapping's volatile,
        // bounds-checked accesses (never as a slice), so changes made by the
        // device or another process break no reference of ours.
        let m = unsafe { memmap2::MmapOptions::new().offset(offset).len(len).map_mut(f) }.map_err(io(name))?;
        Ok(Mapping(m))
    }

    fn alloc(&mut self, len: usize, huge: bool) -> Result<Mapping> {
        let mut o = memmap2::MmapOptions::new();
        o.len(len).populate();
        if huge {
            o.huge(Some(21));
        }
        let m = o.map_anon().map_err(io(if huge { "2 MiB huge pages (vm.nr_hugepages)" } else { "memory" }))?;
        m.lock().map_err(io("mlock of DMA memory (RLIMIT_MEMLOCK)"))?;
        Ok(Mapping(m))
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

    fn ioctl_val(&mut self, fd: Fd, request: ValueIoctl, value: u64) -> Result<i32> {
        let mut b = value.to_le_bytes();
        // SAFETY: the stand-in kernel only records and answers through `b`.
        unsafe { self.ioctl_buf(fd, request.request(), &mut b) }
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
        // SAFETY: a plain file standing in for a device, reached only through
        // Mapping's volatile accesses, as the real one.
        let m = unsafe { memmap2::MmapOptions::new().offset(offset).len(len).map_mut(f) }.map_err(io(p.display()))?;
        Ok(Mapping(m))
    }

    fn alloc(&mut self, len: usize, _huge: bool) -> Result<Mapping> {
        Ok(Mapping(memmap2::MmapOptions::new().len(len).map_anon().map_err(io("memory"))?))
    }

    fn pagemap(&mut self, vaddr: u64) -> Result<u64> {
        Ok(self.pages.get(&(vaddr / 4096)).copied().unwrap_or(self.default_page))
    }
}
