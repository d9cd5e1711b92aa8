//! No function in `sim/src/` is longer than [`MAX_LINES`] lines: a long
//! harness function hides which part of a lockstep run decides what, and
//! copies of stream handshakes and checkers grow inside them.
//!
//! The check scans the sources as text: a function runs from its `fn` line
//! to its closing brace, with braces in strings, characters and comments
//! skipped.

use std::path::Path;

/// Longest function allowed, in lines from `fn` to its closing brace.
const MAX_LINES: usize = 80;

/// Files other work is rewriting at the time of writing: their long
/// functions are listed on stderr rather than failed, so that this check
/// does not collide with the rewrite. None of them has one today; take
/// each off the list once its rewrite has landed.
const ELSEWHERE: &[&str] = &[
    // The fabric model and the pcap writer.
    "fabric.rs",
    "pcap.rs",
    // The Verilator harness, and the rust-hdl vs Verilator equivalence runs.
    "verilator.rs",
    "equivalence.rs",
];

/// `(name, first line, lines)` of every function in `src`.
fn functions(src: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = src.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = fn_name(line) else { continue };
        // A declaration without a body (a trait method) ends in `;`.
        if let Some(end) = body_end(&lines[i..]) {
            found.push((name, i + 1, end + 1));
        }
    }
    found
}

/// The name of the function a line starts, if it starts one.
fn fn_name(line: &str) -> Option<String> {
    let mut rest = line.trim_start();
    if rest.starts_with("//") {
        return None;
    }
    for prefix in ["pub(crate) ", "pub(super) ", "pub ", "const ", "async ", "unsafe ", "extern \"C\" "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let rest = rest.strip_prefix("fn ")?;
    let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    (!name.is_empty()).then_some(name)
}

/// Index (into `lines`) of the line where the body opened on or after
/// line 0 closes; `None` when a `;` ends the item before a body opens.
fn body_end(lines: &[&str]) -> Option<usize> {
    let mut depth = 0usize;
    let mut opened = false;
    let mut in_block_comment = 0usize;
    for (i, line) in lines.iter().enumerate() {
        let c: Vec<char> = line.chars().collect();
        let mut j = 0;
        while j < c.len() {
            if in_block_comment > 0 {
                if c[j] == '*' && c.get(j + 1) == Some(&'/') {
                    in_block_comment -= 1;
                    j += 1;
                } else if c[j] == '/' && c.get(j + 1) == Some(&'*') {
                    in_block_comment += 1;
                    j += 1;
                }
                j += 1;
                continue;
            }
            match c[j] {
                '/' if c.get(j + 1) == Some(&'/') => break,
                '/' if c.get(j + 1) == Some(&'*') => {
                    in_block_comment += 1;
                    j += 1;
                }
                '"' => j = skip_string(&c, j),
                'r' if c.get(j + 1).is_some_and(|n| *n == '#' || *n == '"') && !ident_before(&c, j) => {
                    j = skip_raw_string(&c, j)
                }
                '\'' => j = skip_char(&c, j),
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => {
                    depth -= 1;
                    if opened && depth == 0 {
                        return Some(i);
                    }
                }
                ';' if !opened => return None,
                _ => {}
            }
            j += 1;
        }
    }
    panic!("a function body that never closes: {}", lines[0]);
}

fn ident_before(c: &[char], j: usize) -> bool {
    j > 0 && (c[j - 1].is_alphanumeric() || c[j - 1] == '_')
}

/// Index of the closing quote of the string opening at `j` (a string that
/// runs past the line ends the line).
fn skip_string(c: &[char], j: usize) -> usize {
    let mut k = j + 1;
    while k < c.len() {
        match c[k] {
            '\\' => k += 2,
            '"' => return k,
            _ => k += 1,
        }
    }
    c.len()
}

fn skip_raw_string(c: &[char], j: usize) -> usize {
    let hashes = c[j + 1..].iter().take_while(|x| **x == '#').count();
    let close: Vec<char> = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
    let start = j + 1 + hashes + 1;
    (start..c.len()).find(|k| c[*k..].starts_with(&close)).map_or(c.len(), |k| k + close.len() - 1)
}

/// A character literal's closing quote, or `j` itself for a lifetime.
fn skip_char(c: &[char], j: usize) -> usize {
    if c.get(j + 1) == Some(&'\\') {
        return (j + 2..c.len()).find(|k| c[*k] == '\'').unwrap_or(c.len());
    }
    if c.get(j + 2) == Some(&'\'') {
        return j + 2;
    }
    j
}

/// Every `.rs` file under `dir`, with its path relative to `dir`.
fn sources(dir: &Path, rel: &str, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("sim/src").map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let rel = if rel.is_empty() { name.clone() } else { format!("{rel}/{name}") };
        if p.is_dir() {
            sources(&p, &rel, out);
        } else if name.ends_with(".rs") {
            out.push((rel, std::fs::read_to_string(&p).unwrap()));
        }
    }
}

#[test]
fn no_function_in_sim_src_is_longer_than_80_lines() {
    let mut files = Vec::new();
    sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), "", &mut files);
    let mut long = Vec::new();
    for (rel, src) in &files {
        let over = functions(src)
            .into_iter()
            .filter(|(_, _, n)| *n > MAX_LINES)
            .map(|(name, at, n)| format!("sim/src/{rel}:{at} {name}: {n} lines"));
        if ELSEWHERE.contains(&rel.as_str()) {
            over.for_each(|o| eprintln!("to do (rewritten elsewhere): {o}"));
        } else {
            long.extend(over);
        }
    }
    assert!(long.is_empty(), "functions over {MAX_LINES} lines:\n{}", long.join("\n"));
}

#[test]
fn the_length_scan_sees_bodies_strings_and_comments() {
    let src = "fn a() {\n    let s = \"}{\";\n    // }\n    let c = '}';\n    let r = r#\"}\"#;\n}\n\
               pub fn b<'x>(v: &'x u8) -> u8 {\n    *v\n}\nfn decl();\n";
    let f = functions(src);
    assert_eq!(f, vec![("a".to_string(), 1, 6), ("b".to_string(), 7, 3)]);
}
