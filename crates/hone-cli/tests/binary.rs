//! How the `hone` binary is linked (see `build.rs`).

/// `build.rs` links `hone` with packed relative relocations: its dynamic
/// section holds a `DT_RELR` entry, read here from the ELF file itself.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn hone_is_linked_with_packed_relative_relocations() {
    const PT_DYNAMIC: u32 = 2;
    const DT_NULL: u64 = 0;
    const DT_RELR: u64 = 36;
    let elf = std::fs::read(env!("CARGO_BIN_EXE_hone")).expect("the hone binary is readable");
    let u16_at = |at: usize| u16::from_le_bytes(elf[at..at + 2].try_into().unwrap()) as usize;
    let u32_at = |at: usize| u32::from_le_bytes(elf[at..at + 4].try_into().unwrap());
    let u64_at = |at: usize| u64::from_le_bytes(elf[at..at + 8].try_into().unwrap());
    assert_eq!(&elf[..5], b"\x7fELF\x02", "a 64-bit ELF file");
    // The program headers: where they start, their size and their number.
    let (headers, size, count) = (u64_at(0x20) as usize, u16_at(0x36), u16_at(0x38));
    let dynamic = (0..count)
        .map(|i| headers + i * size)
        .find(|&header| u32_at(header) == PT_DYNAMIC)
        .map(|header| u64_at(header + 8) as usize)
        .expect("a dynamic segment");
    let tags: Vec<u64> = (0..)
        .map(|i| u64_at(dynamic + i * 16))
        .take_while(|&tag| tag != DT_NULL)
        .collect();
    assert!(tags.contains(&DT_RELR), "no DT_RELR among {tags:?}");
}
