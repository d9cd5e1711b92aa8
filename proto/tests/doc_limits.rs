//! The limits the docs state (paths, streams, connections, windows, rings,
//! regions, MTU, key widths) are the code's: every phrase below is searched
//! for in README.md and docs/*.md with any number in each `{}`, and every
//! occurrence must carry the constant's value. A phrase found nowhere fails
//! too, so the list follows the docs when they are reworded.

use std::path::{Path, PathBuf};

use ferroce_proto::params::{
    CONN_KEY_BITS, MEMORY_REGIONS, MSG_WINDOW, PATH_BITS, RECV_RING, SACK_WINDOW, STREAM_BITS,
};
use ferroce_proto::regs::{MAX_CONNS, MAX_MTU, MAX_PATHS, MAX_STREAMS};

/// (phrase with `{}` for each number, the numbers the code says)
fn claims() -> Vec<(&'static str, Vec<u64>)> {
    let paths = MAX_PATHS as u64;
    let streams = MAX_STREAMS as u64;
    let conns = MAX_CONNS as u64;
    let window = SACK_WINDOW as u64;
    let msgs = MSG_WINDOW as u64;
    let (conn_bits, path_bits, stream_bits) = (CONN_KEY_BITS as u64, PATH_BITS as u64, STREAM_BITS as u64);
    assert_eq!(1 << CONN_KEY_BITS, MAX_CONNS, "engine_info.max_conns is the key width's");
    assert_eq!(1 << PATH_BITS, MAX_PATHS, "engine_info.max_paths is the key width's");
    assert_eq!(1 << STREAM_BITS, MAX_STREAMS, "engine_info.max_streams is the key width's");
    vec![
        // Paths per connection.
        ("A connection has 1-{} paths", vec![paths]),
        ("up to {} paths", vec![paths]),
        ("so {} paths is its limit", vec![paths]),
        ("spray` chooses among {} lanes", vec![paths]),
        ("refuses paths above {}", vec![paths - 1]),
        ("the model allows {} paths", vec![paths]),
        // Streams per connection.
        ("up to {} paths and {} streams", vec![paths, streams]),
        ("{} streams per connection", vec![streams]),
        ("streams above {}", vec![streams - 1]),
        ("with all {} streams busy", vec![streams]),
        // Connections.
        ("this build has {} connections", vec![conns]),
        ("all {} connections of the build", vec![conns]),
        ("default build has {} connections x {} paths", vec![conns, paths]),
        ("the default build has {} paths", vec![conns * paths]),
        // Key widths.
        ("({}-bit path keys; stream keys are {} bits", vec![conn_bits + path_bits, conn_bits + stream_bits]),
        ("path keys {} + {} bits, stream keys {} + {}", vec![conn_bits, path_bits, conn_bits, stream_bits]),
        ("with {} path bits and {{connection, stream}} with {} stream bits", vec![path_bits, stream_bits]),
        ("clear themselves after reset in 2^{} cycles", vec![conn_bits + path_bits]),
        // The SACK window.
        ("a {}-bit selective-ack bitmap", vec![window]),
        ("a path never has more than {} PSNs", vec![window]),
        ("in a {}-entry ring indexed by PSN mod {}", vec![window, window]),
        ("a {}-bit circular bitmap indexed by PSN mod {}", vec![window, window]),
        ("A PSN {} or more beyond the cumulative PSN", vec![window]),
        ("(whole packets, 1 to {})", vec![window]),
        ("SACK bitmap indexed by PSN mod {}", vec![window]),
        // The message window.
        ("at most {} messages in flight", vec![msgs]),
        ("starts message n + {} only after", vec![msgs]),
        ("a stream whose {} message slots are busy", vec![msgs]),
        ("message rings per stream of {} slots", vec![msgs]),
        ("never has more than {} messages the RTL", vec![msgs]),
        ("and its {} message slots in a second", vec![msgs]),
        ("per-stream message rings ({}, the message window)", vec![msgs]),
        // Receive buffers and memory regions.
        ("per-stream rings of {} (the driver keeps at most {} posted", vec![RECV_RING as u64, RECV_RING as u64]),
        ("{} memory regions", vec![MEMORY_REGIONS as u64]),
        // MTU.
        ("control.mtu: 0 is out of range 1..={}", vec![MAX_MTU as u64]),
    ]
}

/// README.md and docs/*.md, each as one line of text (runs of white space
/// as one space, so a phrase may break across lines).
fn docs() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut files = vec![root.join("README.md")];
    let mut in_docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    in_docs.sort();
    files.extend(in_docs);
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
            (p, one)
        })
        .collect()
}

/// A number at the start of `s` (digit groups separated by single spaces,
/// as the docs write 1 024): its value and length.
fn number(s: &[u8]) -> Option<(u64, usize)> {
    let mut v = 0u64;
    let mut n = 0;
    let mut i = 0;
    loop {
        let digits = s[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 || (i > 0 && digits != 3) {
            break;
        }
        for c in &s[i..i + digits] {
            v = v * 10 + (c - b'0') as u64;
        }
        i += digits;
        n = i;
        if s.get(i) == Some(&b' ') && s.get(i + 1).is_some_and(|c| c.is_ascii_digit()) {
            i += 1;
        } else {
            break;
        }
    }
    (n > 0).then_some((v, n))
}

/// The numbers in every place `text` matches `phrase` (`{}` a number,
/// `{{`/`}}` a brace).
fn matches(phrase: &str, text: &str) -> Vec<Vec<u64>> {
    let pieces: Vec<String> = phrase
        .replace("{{", "\u{1}")
        .replace("}}", "\u{2}")
        .split("{}")
        .map(|p| p.replace('\u{1}', "{").replace('\u{2}', "}"))
        .collect();
    let t = text.as_bytes();
    let mut found = Vec::new();
    for start in 0..t.len() {
        if pieces[0].is_empty() && start > 0 && t[start - 1].is_ascii_digit() {
            continue;
        }
        let mut at = start;
        let mut nums = Vec::new();
        let mut ok = true;
        for (i, piece) in pieces.iter().enumerate() {
            if i > 0 {
                let Some((v, n)) = number(&t[at..]) else {
                    ok = false;
                    break;
                };
                nums.push(v);
                at += n;
            }
            if !t[at..].starts_with(piece.as_bytes()) {
                ok = false;
                break;
            }
            at += piece.len();
        }
        if ok {
            found.push(nums);
        }
    }
    found
}

#[test]
fn every_limit_the_docs_state_is_the_codes() {
    let docs = docs();
    let mut wrong = Vec::new();
    for (phrase, want) in claims() {
        let mut seen = 0;
        for (path, text) in &docs {
            for got in matches(phrase, text) {
                seen += 1;
                if got != want {
                    wrong.push(format!("{}: \"{phrase}\" says {got:?}, the code {want:?}", path.display()));
                }
            }
        }
        if seen == 0 {
            wrong.push(format!("\"{phrase}\" is in no doc any more: update the claims"));
        }
    }
    assert!(wrong.is_empty(), "docs and code disagree:\n{}", wrong.join("\n"));
}

#[test]
fn the_phrase_matcher_reads_spaced_numbers_and_braces() {
    assert_eq!(matches("has {} paths", "it has 1 024 paths, then has 16 paths"), vec![vec![1024], vec![16]]);
    assert_eq!(matches("{}-bit keys", "10-bit keys"), vec![vec![10]]);
    assert_eq!(matches("{{a}} with {}", "{a} with 3"), vec![vec![3]]);
    assert!(matches("has {} paths", "has many paths").is_empty());
}
