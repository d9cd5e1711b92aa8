//! The VFIO backend and DMA memory against a stand-in kernel (`FakeOs`):
//! the calls the driver makes, in order and with their arguments, the
//! device's registers found through a mapped region, DMA mapping, and the
//! errors a real system gives (a group not bound to vfio-pci, no type-1
//! IOMMU, physical addresses without root).

use std::path::{Path, PathBuf};

use ferroce_driver::discover::Engine;
use ferroce_driver::os::{FakeOs, Os};
use ferroce_driver::vfio::{self, DmaMemory, Vfio, IOVA_BASE};
use ferroce_driver::{Error, RegisterAccess};
use ferroce_proto::regs::{self, RegFile, REGION_BYTES};

/// VFIO's PCI regions sit at index << 40 in the device file.
const REGION_SHIFT: u64 = 40;

fn fake(name: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("ferroce-vfio-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("dev/vfio")).unwrap();
    std::fs::create_dir_all(root.join("fd")).unwrap();
    std::fs::write(root.join("dev/vfio/vfio"), b"").unwrap();
    std::fs::write(root.join("dev/vfio/7"), b"").unwrap();
    // The device: BAR2 holds the engine's registers.
    let file = RegFile::new();
    let bar2: Vec<u8> = (0..REGION_BYTES / 4).flat_map(|i| file.read(4 * i).unwrap_or(0).to_le_bytes()).collect();
    let f = std::fs::OpenOptions::new().create(true).truncate(true).write(true).open(root.join("fd/9")).unwrap();
    f.set_len((2 << REGION_SHIFT) + 4096).unwrap();
    use std::os::unix::fs::FileExt;
    f.write_all_at(&bar2, 2 << REGION_SHIFT).unwrap();
    root
}

/// A kernel that accepts everything, with a viable group.
fn kernel(root: &Path, viable: bool, type1: bool) -> FakeOs {
    let mut os = FakeOs::new(root);
    os.answer = Box::new(move |path, req, buf| match req {
        vfio::VFIO_GET_API_VERSION => Ok(0),
        vfio::VFIO_CHECK_EXTENSION => Ok(type1 as i32),
        vfio::VFIO_GROUP_GET_STATUS => {
            buf[4..8].copy_from_slice(&(viable as u32).to_le_bytes());
            Ok(0)
        }
        vfio::VFIO_GROUP_GET_DEVICE_FD => {
            assert_eq!(buf, b"0000:01:00.0\0", "the device is asked for by name");
            Ok(9)
        }
        vfio::VFIO_DEVICE_GET_REGION_INFO => {
            let index = u32::from_le_bytes(buf[8..12].try_into().unwrap()) as u64;
            let size: u64 = if index == 2 { 4096 } else { 0 };
            buf[16..24].copy_from_slice(&size.to_le_bytes());
            buf[24..32].copy_from_slice(&(index << REGION_SHIFT).to_le_bytes());
            Ok(0)
        }
        vfio::VFIO_GROUP_SET_CONTAINER | vfio::VFIO_SET_IOMMU | vfio::VFIO_IOMMU_MAP_DMA => Ok(0),
        other => panic!("unexpected ioctl {other:#x} on {}", path.display()),
    });
    os
}

#[test]
fn opens_the_device_maps_its_registers_and_dma_memory() {
    let root = fake("ok");
    let mut os = kernel(&root, true, true);
    let mut v = Vfio::open(&mut os, 7, "0000:01:00.0").unwrap();
    let mut bar2 = v.map_region(&mut os, 2).unwrap();
    let e = Engine::discover(&mut bar2, 0).expect("the engine's blocks through the VFIO region");
    let port = e.addr(regs::control::UDP_PORT);
    assert_eq!(bar2.read32(port).unwrap(), 17989);
    assert!(matches!(v.map_region(&mut os, 0), Err(Error::NoDevice(_))), "an empty region");
    let mut m = DmaMemory::vfio(&mut os, &mut v, 3 << 20).unwrap();
    assert_eq!(m.iova(), IOVA_BASE);
    let m2 = DmaMemory::vfio(&mut os, &mut v, 4096).unwrap();
    assert_eq!(m2.iova(), IOVA_BASE + (4 << 20), "IOVAs do not overlap, 2 MiB aligned");
    m.write(IOVA_BASE + 100, &[1, 2, 3]).unwrap();
    let mut b = [0u8; 3];
    m.read(IOVA_BASE + 100, &mut b).unwrap();
    assert_eq!(b, [1, 2, 3]);
    assert!(m.write(IOVA_BASE + (3 << 20) - 1, &[1, 2]).is_err(), "past the end");
    assert!(m.write(IOVA_BASE - 1, &[1]).is_err(), "before the start");
    // The calls, in order: container checks, group status, container and
    // IOMMU set-up, the device, its region, the two DMA maps.
    let reqs: Vec<(String, u64)> = os.calls.iter().map(|(p, r, _)| (p.display().to_string(), *r)).collect();
    let want = [
        ("/dev/vfio/vfio", vfio::VFIO_GET_API_VERSION),
        ("/dev/vfio/vfio", vfio::VFIO_CHECK_EXTENSION),
        ("/dev/vfio/7", vfio::VFIO_GROUP_GET_STATUS),
        ("/dev/vfio/7", vfio::VFIO_GROUP_SET_CONTAINER),
        ("/dev/vfio/vfio", vfio::VFIO_SET_IOMMU),
        ("/dev/vfio/7", vfio::VFIO_GROUP_GET_DEVICE_FD),
        ("/fd/9", vfio::VFIO_DEVICE_GET_REGION_INFO),
        ("/fd/9", vfio::VFIO_DEVICE_GET_REGION_INFO),
        ("/dev/vfio/vfio", vfio::VFIO_IOMMU_MAP_DMA),
        ("/dev/vfio/vfio", vfio::VFIO_IOMMU_MAP_DMA),
    ];
    assert_eq!(reqs, want.iter().map(|(p, r)| (p.to_string(), *r)).collect::<Vec<_>>());
    // SET_CONTAINER carries the container's descriptor; MAP_DMA the
    // read/write flags, the IOVA and the size.
    assert_eq!(os.calls[3].2, os.raw(ferroce_driver::os::Fd(0)).to_le_bytes().to_vec());
    let map = &os.calls[8].2;
    assert_eq!(u32::from_le_bytes(map[4..8].try_into().unwrap()), 3, "readable and writable by the device");
    assert_eq!(u64::from_le_bytes(map[16..24].try_into().unwrap()), IOVA_BASE);
    assert_eq!(u64::from_le_bytes(map[24..32].try_into().unwrap()), 3 << 20);
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn refuses_a_group_not_bound_to_vfio_and_a_kernel_without_type1() {
    let root = fake("refuse");
    let e = Vfio::open(&mut kernel(&root, false, true), 7, "0000:01:00.0").unwrap_err();
    assert!(e.to_string().contains("not viable"), "{e}");
    let e = Vfio::open(&mut kernel(&root, true, false), 7, "0000:01:00.0").unwrap_err();
    assert!(e.to_string().contains("type-1"), "{e}");
    let e = Vfio::open(&mut kernel(&root, true, true), 8, "0000:01:00.0").unwrap_err();
    assert!(e.to_string().contains("/dev/vfio/8"), "no such group: {e}");
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn huge_page_memory_needs_a_real_page_frame() {
    let root = fake("huge");
    let mut os = FakeOs::new(&root);
    // Not in memory at all.
    let e = DmaMemory::hugepage(&mut os, 4096).unwrap_err();
    assert!(e.to_string().contains("not present"), "{e}");
    // Present, but the frame reads as 0, as the kernel shows it to
    // unprivileged readers.
    os.default_page = 1 << 63;
    let e = DmaMemory::hugepage(&mut os, 4096).unwrap_err();
    assert!(e.to_string().contains("root"), "{e}");
    // Present with its frame: the device address is frame * page size.
    os.default_page = 1 << 63 | 0x1234;
    let mut m = DmaMemory::hugepage(&mut os, 4096).unwrap();
    assert_eq!(m.iova(), 0x1234 * 4096, "a page-aligned mapping starts at its frame");
    m.write(m.iova() + 8, &[7]).unwrap();
    assert!(DmaMemory::hugepage(&mut os, 3 << 20).is_err(), "more than one huge page");
    assert!(DmaMemory::hugepage(&mut os, 0).is_err());
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn the_iommu_group_comes_from_sysfs() {
    let root = fake("group");
    let dev = root.join("devices/0000:01:00.0");
    std::fs::create_dir_all(&dev).unwrap();
    std::fs::create_dir_all(root.join("kernel/iommu_groups/13")).unwrap();
    std::os::unix::fs::symlink(root.join("kernel/iommu_groups/13"), dev.join("iommu_group")).unwrap();
    assert_eq!(vfio::group_of(&root.join("devices"), "0000:01:00.0").unwrap(), 13);
    assert!(vfio::group_of(&root.join("devices"), "0000:02:00.0").is_err());
    std::fs::remove_dir_all(root).unwrap();
}
