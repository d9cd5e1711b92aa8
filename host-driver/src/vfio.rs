//! VFIO: a PCI device handed to user space by the kernel's IOMMU driver.
//! The container (`/dev/vfio/vfio`) holds the IOMMU context, the group
//! (`/dev/vfio/<n>`) the devices that share it; the device's BARs are
//! regions mapped from its file descriptor, and host memory becomes visible
//! to the device at an IOVA of our choosing (`VFIO_IOMMU_MAP_DMA`). Every
//! call goes through [`crate::os::Os`]. Layouts and numbers are those of
//! `linux/vfio.h`.
//!
//! DMA memory: [`DmaMemory`] is one contiguous buffer in the device's
//! address space, either mapped through VFIO (any size, IOVA chosen here)
//! or a single 2 MiB huge page addressed by its physical address from
//! `/proc/self/pagemap` (without an IOMMU; needs root, which the kernel
//! signals by reporting page frame 0).

#![allow(unsafe_code)]

use std::path::Path;

use crate::os::{Fd, Mapping, Os, ValueIoctl};
use crate::pci::Bar;
use crate::{Error, Result};

const VFIO_TYPE: u64 = b';' as u64;
const fn io(nr: u64) -> u64 {
    VFIO_TYPE << 8 | (100 + nr)
}
pub const VFIO_GET_API_VERSION: u64 = io(0);
pub const VFIO_CHECK_EXTENSION: u64 = io(1);
pub const VFIO_SET_IOMMU: u64 = io(2);
pub const VFIO_GROUP_GET_STATUS: u64 = io(3);
pub const VFIO_GROUP_SET_CONTAINER: u64 = io(4);
pub const VFIO_GROUP_GET_DEVICE_FD: u64 = io(6);
pub const VFIO_DEVICE_GET_REGION_INFO: u64 = io(8);
pub const VFIO_IOMMU_MAP_DMA: u64 = io(13);
pub const VFIO_API_VERSION: i32 = 0;
pub const VFIO_TYPE1_IOMMU: u64 = 1;
pub const VFIO_GROUP_FLAGS_VIABLE: u32 = 1;
pub const VFIO_DMA_MAP_FLAG_READ: u32 = 1;
pub const VFIO_DMA_MAP_FLAG_WRITE: u32 = 2;
// SAFETY: linux/vfio.h: VFIO_GET_API_VERSION takes no argument,
// VFIO_CHECK_EXTENSION an extension number and VFIO_SET_IOMMU an IOMMU type,
// both integers passed by value.
const GET_API_VERSION: ValueIoctl = unsafe { ValueIoctl::new(VFIO_GET_API_VERSION) };
// SAFETY: as above.
const CHECK_EXTENSION: ValueIoctl = unsafe { ValueIoctl::new(VFIO_CHECK_EXTENSION) };
// SAFETY: as above.
const SET_IOMMU: ValueIoctl = unsafe { ValueIoctl::new(VFIO_SET_IOMMU) };
/// First IOVA handed out.
pub const IOVA_BASE: u64 = 1 << 32;

/// The IOMMU group of PCI device `bdf`, from
/// `<sysfs_devices>/<bdf>/iommu_group` (a link to `.../iommu_groups/<n>`).
pub fn group_of(sysfs_devices: &Path, bdf: &str) -> Result<u32> {
    let link = sysfs_devices.join(bdf).join("iommu_group");
    let target = std::fs::read_link(&link).map_err(|e| Error::Io { path: link.display().to_string(), source: e })?;
    target
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| Error::NoDevice(format!("{bdf}: {} names no IOMMU group", target.display())))
}

/// An opened VFIO device.
#[derive(Debug)]
pub struct Vfio {
    container: Fd,
    device: Fd,
    bdf: String,
    next_iova: u64,
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}
fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

impl Vfio {
    /// Open device `bdf` of IOMMU group `group` with a type-1 IOMMU.
    pub fn open(os: &mut dyn Os, group: u32, bdf: &str) -> Result<Vfio> {
        let container = os.open(Path::new("/dev/vfio/vfio"))?;
        let v = os.ioctl_val(container, GET_API_VERSION, 0)?;
        if v != VFIO_API_VERSION {
            return Err(Error::System(format!("VFIO API version {v}, this driver speaks {VFIO_API_VERSION}")));
        }
        if os.ioctl_val(container, CHECK_EXTENSION, VFIO_TYPE1_IOMMU)? != 1 {
            return Err(Error::System("the kernel's VFIO has no type-1 IOMMU".into()));
        }
        let gpath = format!("/dev/vfio/{group}");
        let g = os.open(Path::new(&gpath))?;
        let mut status = [0u8; 8];
        status[0..4].copy_from_slice(&8u32.to_le_bytes());
        // SAFETY: struct vfio_group_status is 8 bytes.
        unsafe { os.ioctl_buf(g, VFIO_GROUP_GET_STATUS, &mut status) }?;
        if le32(&status, 4) & VFIO_GROUP_FLAGS_VIABLE == 0 {
            return Err(Error::System(format!(
                "IOMMU group {group} is not viable: bind every device in it to vfio-pci"
            )));
        }
        // The container's descriptor number is passed by pointer.
        let mut c = os.raw(container).to_le_bytes();
        // SAFETY: the argument is an int, 4 bytes.
        unsafe { os.ioctl_buf(g, VFIO_GROUP_SET_CONTAINER, &mut c) }?;
        os.ioctl_val(container, SET_IOMMU, VFIO_TYPE1_IOMMU)?;
        let mut name = bdf.as_bytes().to_vec();
        name.push(0);
        // SAFETY: the argument is a NUL-terminated string, `name` with its NUL.
        let raw = unsafe { os.ioctl_buf(g, VFIO_GROUP_GET_DEVICE_FD, &mut name) }?;
        // SAFETY: VFIO_GROUP_GET_DEVICE_FD returns a new descriptor, ours alone.
        let device = unsafe { os.adopt(raw, &format!("VFIO device {bdf}")) }?;
        Ok(Vfio { container, device, bdf: bdf.into(), next_iova: IOVA_BASE })
    }

    /// Map region `index` (PCI BAR `index`) as registers.
    pub fn map_region(&self, os: &mut dyn Os, index: u32) -> Result<Bar> {
        let mut info = [0u8; 32];
        info[0..4].copy_from_slice(&32u32.to_le_bytes());
        info[8..12].copy_from_slice(&index.to_le_bytes());
        // SAFETY: struct vfio_region_info (without capabilities) is 32 bytes.
        unsafe { os.ioctl_buf(self.device, VFIO_DEVICE_GET_REGION_INFO, &mut info) }?;
        let (size, offset) = (le64(&info, 16), le64(&info, 24));
        if size == 0 {
            return Err(Error::NoDevice(format!("{}: region {index} is empty", self.bdf)));
        }
        let map = os.map(self.device, offset, size as usize)?;
        Ok(Bar::from_mapping(map, &format!("{} region {index}", self.bdf)))
    }

    /// Make `m` visible to the device; returns its IOVA.
    pub fn map_dma(&mut self, os: &mut dyn Os, m: &Mapping) -> Result<u64> {
        let iova = self.next_iova;
        let mut map = [0u8; 32];
        map[0..4].copy_from_slice(&32u32.to_le_bytes());
        map[4..8].copy_from_slice(&(VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE).to_le_bytes());
        map[8..16].copy_from_slice(&(m.as_ptr() as u64).to_le_bytes());
        map[16..24].copy_from_slice(&iova.to_le_bytes());
        map[24..32].copy_from_slice(&(m.len() as u64).to_le_bytes());
        // SAFETY: struct vfio_iommu_type1_dma_map is 32 bytes; the memory
        // it names is `m`, which the caller keeps (DmaMemory owns both the
        // mapping and the VFIO context, and the container's mappings end
        // when its descriptor closes).
        unsafe { os.ioctl_buf(self.container, VFIO_IOMMU_MAP_DMA, &mut map) }?;
        // Keep IOVAs 2 MiB aligned.
        self.next_iova += (m.len() as u64).div_ceil(2 << 20) * (2 << 20);
        Ok(iova)
    }
}

/// One contiguous buffer the device reaches at `iova`.
#[derive(Debug)]
pub struct DmaMemory {
    map: Mapping,
    iova: u64,
}

/// Size of a huge page.
pub const HUGE_PAGE: usize = 2 << 20;

impl DmaMemory {
    /// `len` bytes of pinned memory mapped through VFIO.
    pub fn vfio(os: &mut dyn Os, vfio: &mut Vfio, len: usize) -> Result<DmaMemory> {
        if len == 0 {
            return Err(Error::BadRequest("DMA memory of 0 bytes".into()));
        }
        let map = os.alloc(len, len >= HUGE_PAGE)?;
        let iova = vfio.map_dma(os, &map)?;
        Ok(DmaMemory { map, iova })
    }

    /// One 2 MiB huge page, addressed physically (no IOMMU).
    pub fn hugepage(os: &mut dyn Os, len: usize) -> Result<DmaMemory> {
        if len == 0 || len > HUGE_PAGE {
            return Err(Error::BadRequest(format!(
                "{len} bytes: physically addressed DMA memory is one 2 MiB huge page (use VFIO for more)"
            )));
        }
        let map = os.alloc(HUGE_PAGE, true)?;
        let vaddr = map.as_ptr() as u64;
        let entry = os.pagemap(vaddr)?;
        let pfn = entry & ((1 << 55) - 1);
        if entry >> 63 == 0 {
            return Err(Error::System("the huge page is not present in /proc/self/pagemap".into()));
        }
        if pfn == 0 {
            return Err(Error::System(
                "/proc/self/pagemap reports page frame 0: physical addresses need root (CAP_SYS_ADMIN)".into(),
            ));
        }
        let page = os.page_size() as u64;
        Ok(DmaMemory { map, iova: pfn * page + vaddr % page })
    }

    /// The device's address of byte 0.
    pub fn iova(&self) -> u64 {
        self.iova
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    fn range(&self, iova: u64, len: usize) -> Result<usize> {
        let off = iova.checked_sub(self.iova).filter(|o| o + len as u64 <= self.map.len() as u64);
        off.map(|o| o as usize).ok_or_else(|| {
            Error::BadRequest(format!("{iova:#x}+{len} is outside the DMA memory {:#x}+{}", self.iova, self.map.len()))
        })
    }

    /// Write `data` at device address `iova`.
    pub fn write(&mut self, iova: u64, data: &[u8]) -> Result<()> {
        let o = self.range(iova, data.len())?;
        self.map.write(o, data).expect("inside: range checked it");
        Ok(())
    }

    /// Read `buf.len()` bytes at device address `iova`.
    pub fn read(&self, iova: u64, buf: &mut [u8]) -> Result<()> {
        let o = self.range(iova, buf.len())?;
        self.map.read(o, buf).expect("inside: range checked it");
        Ok(())
    }
}

/// An engine on real hardware: its registers and the DMA memory it reaches.
#[derive(Debug)]
pub struct HwDevice {
    pub regs: Bar,
    pub mem: DmaMemory,
}

impl crate::RegisterAccess for HwDevice {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        self.regs.read32(offset)
    }
    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        self.regs.write32(offset, value)
    }
}

impl crate::driver::Device for HwDevice {
    fn write_mem(&mut self, addr: u64, data: &[u8]) -> Result<()> {
        self.mem.write(addr, data)?;
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        Ok(())
    }
    fn read_mem(&mut self, addr: u64, buf: &mut [u8]) -> Result<()> {
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        self.mem.read(addr, buf)
    }
    fn idle(&mut self) -> Result<()> {
        std::thread::sleep(std::time::Duration::from_micros(20));
        Ok(())
    }
}
