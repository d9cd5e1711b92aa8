//! PCI devices from sysfs, and BARs mapped from their `resourceN` files
//! (the ixy.rs way). All OS access is here; tests point `root` at a fake
//! sysfs tree in a temporary folder.

use std::path::{Path, PathBuf};

use crate::os::Os;
use crate::{Error, RegisterAccess, Result};

/// Corundum's PCI identity (vendor, device).
pub const CORUNDUM_ID: (u16, u16) = (0x1234, 0x1001);

/// The real sysfs folder of PCI devices.
pub const SYSFS_DEVICES: &str = "/sys/bus/pci/devices";

/// A PCI function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Device {
    /// Bus/device/function, e.g. `0000:01:00.0`.
    pub bdf: String,
    pub vendor: u16,
    pub device: u16,
    pub path: PathBuf,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io { path: path.display().to_string(), source }
}

fn read_hex(path: &Path) -> Result<u16> {
    let s = std::fs::read_to_string(path).map_err(io(path))?;
    u16::from_str_radix(s.trim().trim_start_matches("0x"), 16)
        .map_err(|e| Error::Io { path: path.display().to_string(), source: std::io::Error::other(e) })
}

/// Every PCI function under `root` with the given identity, sorted by BDF.
pub fn find(root: &Path, id: (u16, u16)) -> Result<Vec<Device>> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(root).map_err(io(root))?;
    for e in entries {
        let e = e.map_err(io(root))?;
        let path = e.path();
        let (Ok(vendor), Ok(device)) = (read_hex(&path.join("vendor")), read_hex(&path.join("device"))) else {
            continue;
        };
        if (vendor, device) == id {
            out.push(Device { bdf: e.file_name().to_string_lossy().into_owned(), vendor, device, path });
        }
    }
    out.sort_by(|a, b| a.bdf.cmp(&b.bdf));
    Ok(out)
}

/// The device `bdf` under `root`.
pub fn open(root: &Path, bdf: &str) -> Result<Device> {
    let path = root.join(bdf);
    let (vendor, device) = (read_hex(&path.join("vendor")), read_hex(&path.join("device")));
    match (vendor, device) {
        (Ok(vendor), Ok(device)) => Ok(Device { bdf: bdf.into(), vendor, device, path }),
        _ => Err(Error::NoDevice(bdf.into())),
    }
}

/// A BAR mapped into this process.
#[derive(Debug)]
pub struct Bar {
    map: crate::os::Mapping,
    path: PathBuf,
}

impl Bar {
    /// Map BAR `index` of `dev`. If the device answers all ones (memory
    /// decoding off), enable it once through sysfs and look again.
    pub fn map(dev: &Device, index: u8) -> Result<Bar> {
        let path = dev.path.join(format!("resource{index}"));
        let len = std::fs::metadata(&path).map_err(io(&path))?.len();
        let mut bar = Bar::map_file(&path, 0, len as usize)?;
        if bar.map.len() >= 4 && bar.read32(0)? == 0xffff_ffff {
            let enable = dev.path.join("enable");
            if enable.exists() {
                std::fs::write(&enable, "1").map_err(io(&enable))?;
            }
        }
        Ok(bar)
    }

    /// Map `len` bytes of the file or device `path` from byte `offset` (a
    /// multiple of the page size).
    pub fn map_file(path: &Path, offset: u64, len: usize) -> Result<Bar> {
        if len == 0 {
            return Err(Error::Access { offset: 0, what: format!("{} has nothing to map", path.display()) });
        }
        let mut os = crate::os::RealOs::default();
        let fd = os.open(path)?;
        let map = os.map(fd, offset, len)?;
        Ok(Bar { map, path: path.to_path_buf() })
    }

    /// Registers in a mapping made by the OS layer (a VFIO region).
    pub fn from_mapping(map: crate::os::Mapping, name: &str) -> Bar {
        Bar { map, path: PathBuf::from(name) }
    }

    /// Bytes mapped.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True if nothing is mapped.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    fn outside(&self, offset: u32) -> Error {
        Error::Access {
            offset,
            what: format!("outside the {}-byte BAR {} or misaligned", self.map.len(), self.path.display()),
        }
    }
}

impl RegisterAccess for Bar {
    fn read32(&mut self, offset: u32) -> Result<u32> {
        self.map.read32(offset as usize).ok_or_else(|| self.outside(offset))
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<()> {
        self.map.write32(offset as usize, value).ok_or_else(|| self.outside(offset))
    }
}

/// Corundum's character device: `/dev/mqnicN` maps register region `r` at
/// offset `r << 40` (region 0 is BAR0 with Corundum's registers, region 1
/// the application's BAR). Region sizes come from the PCI device behind it,
/// `<sysfs>/class/misc/mqnicN/device/resource{0,2}`.
#[derive(Debug, Clone)]
pub struct Mqnic {
    pub dev: PathBuf,
    /// The PCI device's sysfs folder.
    pub pci: PathBuf,
}

/// Offset shift of a region in the character device.
pub const MQNIC_REGION_SHIFT: u32 = 40;
/// Default sysfs root for the character device's class.
pub const SYSFS_ROOT: &str = "/sys";

impl Mqnic {
    /// The character device `dev` (e.g. `/dev/mqnic0`) with its PCI device
    /// found under `sysfs` (normally `/sys`).
    pub fn open(dev: &Path, sysfs: &Path) -> Result<Mqnic> {
        let name =
            dev.file_name().and_then(|n| n.to_str()).ok_or_else(|| Error::NoDevice(dev.display().to_string()))?;
        if !dev.exists() {
            return Err(Error::NoDevice(dev.display().to_string()));
        }
        let pci = sysfs.join("class/misc").join(name).join("device");
        if !pci.join("resource0").exists() {
            return Err(Error::NoDevice(format!("{} (no PCI device at {})", dev.display(), pci.display())));
        }
        Ok(Mqnic { dev: dev.to_path_buf(), pci })
    }

    /// Every `mqnic*` character device under `dev_dir`.
    pub fn find(dev_dir: &Path) -> Result<Vec<PathBuf>> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dev_dir).map_err(io(dev_dir))? {
            let e = e.map_err(io(dev_dir))?;
            if e.file_name().to_string_lossy().starts_with("mqnic") {
                out.push(e.path());
            }
        }
        out.sort();
        Ok(out)
    }

    /// Map region `region` (0: Corundum's BAR0, 1: the application BAR).
    pub fn map(&self, region: u8) -> Result<Bar> {
        let bar = if region == 0 { 0 } else { 2 };
        let res = self.pci.join(format!("resource{bar}"));
        let len = std::fs::metadata(&res).map_err(io(&res))?.len() as usize;
        Bar::map_file(&self.dev, (region as u64) << MQNIC_REGION_SHIFT, len)
    }
}
