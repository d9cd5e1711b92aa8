//! No hand-written Verilog in `hdl/` outside primitives: every block's logic
//! is `#[hdl_gen]` Rust, from which rust-hdl writes the Verilog.
//!
//! Counted as hand-written Verilog (the categories of
//! `/work/shared/tools/hdl-fidelity`, with its patterns):
//! * `.v`, `.sv` and `.vh` files;
//! * `Verilog::Custom(`, `Verilog::Wrapper(`, `Verilog::Blackbox(`,
//!   `Verilog::Combinatorial(` and Verilog AST values built by hand
//!   (`VerilogStatement::`, `VerilogExpression::`, ... ) in code;
//! * string literals, raw or plain, holding Verilog constructs (`module`,
//!   `endmodule`, `assign x =`, `always @`, wire and reg declarations,
//!   `genvar`, `localparam`, `endgenerate`);
//! * `format!`/`write!`/`writeln!`/`format_args!`/`concat!` whose format
//!   string holds those or Verilog expressions (part selects like
//!   `[{}:{}]`, sized literals like `32'h`, rust-hdl's `a$b` names);
//! * `include_str!`/`include_bytes!` of a Verilog file.
//!
//! Skipped, as by the tool: `target/`, `tests/` and `benches/` folders, and
//! anything under a `primitives` folder or module (vendor primitives).
//! Unlike the tool, comments are not searched.
//!
//! Files may hold such Verilog only if listed below; a listed file that no
//! longer does fails the test too, so the lists only shrink.

use std::path::{Path, PathBuf};

/// Files allowed to hold hand-written Verilog: none (the primitives in
/// `hdl/src/primitives/` are not scanned).
const KEPT: &[(&str, &str)] = &[];

/// One place where a file holds hand-written Verilog.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Finding {
    line: usize,
    what: String,
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// A Rust source split into code (comments and literals blanked, lines
/// kept) and its string literals.
#[derive(Debug, Default)]
struct Lexed {
    code: Vec<char>,
    strings: Vec<Lit>,
}

#[derive(Debug)]
struct Lit {
    line: usize,
    body: String,
    /// The macro whose first string literal this is (`format`, `include_str`, ...).
    after_macro: Option<String>,
}

fn lex(src: &str) -> Lexed {
    let s: Vec<char> = src.chars().collect();
    let mut out = Lexed { code: Vec::with_capacity(s.len()), ..Default::default() };
    let (mut i, mut line) = (0, 1);
    let mut pending: Option<String> = None;
    let mut ident = String::new();
    let mut last_ident = String::new();
    let blank = |out: &mut Lexed, c: char| out.code.push(if c == '\n' { '\n' } else { ' ' });
    while i < s.len() {
        let c = s[i];
        let next = s.get(i + 1).copied();
        if is_word(c) {
            ident.push(c);
        } else if !ident.is_empty() {
            last_ident = std::mem::take(&mut ident);
        }
        // Comments.
        if c == '/' && next == Some('/') {
            while i < s.len() && s[i] != '\n' {
                blank(&mut out, s[i]);
                i += 1;
            }
            continue;
        }
        if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && s.get(i + 1) == Some(&'*') {
                    depth += 1;
                    blank(&mut out, ' ');
                    blank(&mut out, ' ');
                    i += 2;
                } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    blank(&mut out, ' ');
                    blank(&mut out, ' ');
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += (s[i] == '\n') as usize;
                    blank(&mut out, s[i]);
                    i += 1;
                }
            }
            continue;
        }
        // Raw strings: r"..", r#".."#, br"..".
        let prev_word = i > 0 && is_word(s[i - 1]) && !(s[i - 1] == 'b' && (i < 2 || !is_word(s[i - 2])));
        if c == 'r' && !prev_word {
            let mut j = i + 1;
            while s.get(j) == Some(&'#') {
                j += 1;
            }
            if s.get(j) == Some(&'"') {
                let hashes = j - i - 1;
                let start_line = line;
                let mut body = String::new();
                for _ in i..=j {
                    blank(&mut out, ' ');
                }
                let mut k = j + 1;
                while k < s.len() {
                    if s[k] == '"' && (1..=hashes).all(|h| s.get(k + h) == Some(&'#')) {
                        break;
                    }
                    line += (s[k] == '\n') as usize;
                    body.push(s[k]);
                    blank(&mut out, s[k]);
                    k += 1;
                }
                for _ in 0..=hashes {
                    blank(&mut out, ' ');
                }
                out.strings.push(Lit { line: start_line, body, after_macro: pending.take() });
                ident.clear();
                i = k + 1 + hashes;
                continue;
            }
        }
        if c == '"' {
            let start_line = line;
            let mut body = String::new();
            blank(&mut out, ' ');
            let mut k = i + 1;
            while k < s.len() && s[k] != '"' {
                if s[k] == '\\' && k + 1 < s.len() {
                    match s[k + 1] {
                        'n' => body.push('\n'),
                        't' => body.push('\t'),
                        '\n' => {
                            // A line continuation: the next line's indentation is skipped.
                            line += 1;
                            blank(&mut out, '\n');
                            blank(&mut out, ' ');
                            k += 2;
                            while k < s.len() && s[k].is_whitespace() {
                                line += (s[k] == '\n') as usize;
                                blank(&mut out, s[k]);
                                k += 1;
                            }
                            continue;
                        }
                        other => body.push(other),
                    }
                    blank(&mut out, ' ');
                    blank(&mut out, ' ');
                    k += 2;
                    continue;
                }
                line += (s[k] == '\n') as usize;
                body.push(s[k]);
                blank(&mut out, s[k]);
                k += 1;
            }
            blank(&mut out, ' ');
            out.strings.push(Lit { line: start_line, body, after_macro: pending.take() });
            i = k + 1;
            continue;
        }
        // Character literals ('"', '\'', '\n'); lifetimes pass through.
        if c == '\'' {
            let len = if next == Some('\\') {
                (i + 2..s.len()).find(|&k| s[k] == '\'').map(|k| k - i + 1)
            } else if s.get(i + 2) == Some(&'\'') {
                Some(3)
            } else {
                None
            };
            if let Some(n) = len {
                for _ in 0..n {
                    blank(&mut out, ' ');
                }
                i += n;
                continue;
            }
        }
        if c == '!' && ident.is_empty() {
            let m = last_ident.as_str();
            if ["format", "write", "writeln", "format_args", "concat", "include_str", "include_bytes"].contains(&m) {
                pending = Some(m.to_string());
            }
        }
        if !c.is_whitespace() && c != '!' && c != '(' && !is_word(c) && c != ',' && c != '&' && c != '.' {
            // Past the macro's opening: `write!(s, "..")` keeps it over `s,`.
            if c == ';' || c == '}' {
                pending = None;
            }
        }
        line += (c == '\n') as usize;
        out.code.push(c);
        i += 1;
    }
    out
}

/// At `i`, after a non-word character (or the start): `w`.
fn word_at(s: &[char], i: usize, w: &str) -> bool {
    (i == 0 || !is_word(s[i - 1])) && w.chars().enumerate().all(|(k, c)| s.get(i + k) == Some(&c))
}

fn skip_ws(s: &[char], mut i: usize) -> usize {
    while s.get(i).is_some_and(|c| c.is_whitespace()) {
        i += 1;
    }
    i
}

fn skip_word(s: &[char], mut i: usize) -> usize {
    while s.get(i).is_some_and(|c| is_word(*c)) {
        i += 1;
    }
    i
}

/// `wire`/`reg` declaration after the keyword at `j`: `\s*(\[[^\]]*\]\s*)?\w+\s*[ends]`.
fn declaration(s: &[char], j: usize, ends: &[char]) -> bool {
    let try_from = |mut k: usize| {
        let w = skip_word(s, k);
        if w == k {
            return false;
        }
        k = skip_ws(s, w);
        s.get(k).is_some_and(|c| ends.contains(c))
    };
    let k = skip_ws(s, j);
    if s.get(k) == Some(&'[') {
        if let Some(close) = (k..s.len()).find(|&m| s[m] == ']') {
            if try_from(skip_ws(s, close + 1)) {
                return true;
            }
        }
    }
    try_from(k)
}

/// The first Verilog construct in `text` (hdl-fidelity's pattern, and
/// `module NAME`).
fn verilog_construct(text: &str) -> Option<&'static str> {
    let s: Vec<char> = text.chars().collect();
    for i in 0..s.len() {
        if word_at(&s, i, "assign") {
            let j = i + 6;
            let k = skip_ws(&s, j);
            if k > j {
                let mut m = k;
                while s.get(m).is_some_and(|c| is_word(*c) || "$[]{}.:".contains(*c)) {
                    m += 1;
                }
                if m > k && s.get(skip_ws(&s, m)) == Some(&'=') {
                    return Some("assign");
                }
            }
        }
        if word_at(&s, i, "always") && s.get(skip_ws(&s, i + 6)) == Some(&'@') {
            return Some("always @");
        }
        for w in ["always_ff", "always_comb", "endmodule", "endgenerate"] {
            if word_at(&s, i, w) {
                return Some(w);
            }
        }
        for w in ["genvar", "localparam"] {
            if word_at(&s, i, w) && s.get(i + w.len()).is_some_and(|c| c.is_whitespace()) {
                return Some(w);
            }
        }
        if word_at(&s, i, "wire") && declaration(&s, i + 4, &[';', '=', ',']) {
            return Some("wire declaration");
        }
        if word_at(&s, i, "reg") && declaration(&s, i + 3, &[';', '=', '[', ',']) {
            return Some("reg declaration");
        }
        if word_at(&s, i, "module") {
            let k = skip_ws(&s, i + 6);
            if k > i + 6 && skip_word(&s, k) > k {
                return Some("module");
            }
        }
    }
    None
}

/// A Verilog expression in a format string: a part select of numbers or
/// placeholders (`[{}:{}]`, `[7:0]`, `[{} +: 32]`), a sized literal
/// (`32'h`, `{w}'d`), or a rust-hdl instance name (`csr$regs`).
fn verilog_expression(text: &str) -> Option<&'static str> {
    let s: Vec<char> = text.chars().collect();
    let operand = |mut k: usize| -> Option<usize> {
        k = skip_ws(&s, k);
        if s.get(k) == Some(&'{') {
            let close = (k..s.len()).find(|&m| s[m] == '}')?;
            Some(skip_ws(&s, close + 1))
        } else if s.get(k).is_some_and(|c| c.is_ascii_digit()) {
            while s.get(k).is_some_and(|c| c.is_ascii_digit()) {
                k += 1;
            }
            Some(skip_ws(&s, k))
        } else {
            None
        }
    };
    for i in 0..s.len() {
        if s[i] == '[' {
            if let Some(k) = operand(i + 1) {
                let k = if s.get(k) == Some(&':') {
                    Some(k + 1)
                } else if s.get(k) == Some(&'+') && s.get(k + 1) == Some(&':') {
                    Some(k + 2)
                } else {
                    None
                };
                if let Some(e) = k.and_then(operand) {
                    if s.get(e) == Some(&']') {
                        return Some("part select");
                    }
                }
            }
        }
        if s[i] == '\''
            && i > 0
            && (s[i - 1].is_ascii_digit() || s[i - 1] == '}')
            && s.get(i + 1).is_some_and(|c| "bdhBDH".contains(*c))
        {
            return Some("sized literal");
        }
        if s[i] == '$' && i > 0 && is_word(s[i - 1]) && s.get(i + 1).is_some_and(|c| is_word(*c)) {
            return Some("rust-hdl instance name");
        }
    }
    None
}

/// Hand-made Verilog in code (hdl-fidelity's patterns).
fn verilog_in_code(code: &[char]) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut line = 1;
    for i in 0..code.len() {
        line += (code[i] == '\n') as usize;
        let at = |w: &str| w.chars().enumerate().all(|(k, c)| code.get(i + k) == Some(&c));
        if at("Verilog::") && (i == 0 || !is_word(code[i - 1])) {
            for v in ["Custom", "Wrapper", "Blackbox", "Combinatorial"] {
                let j = i + 9;
                let w: String = code[j..skip_word(code, j)].iter().collect();
                if w == v && code.get(skip_ws(code, j + v.len())) == Some(&'(') {
                    out.push(Finding { line, what: format!("Verilog::{v}(") });
                }
            }
        }
        if word_at(code, i, "Verilog") {
            for v in ["Statement", "Expression", "Block", "Match", "Loop", "Conditional", "Literal", "Link"] {
                let j = i + 7;
                if skip_word(code, j) == j + v.len() && at(&format!("Verilog{v}")) {
                    let k = skip_ws(code, j + v.len());
                    if code.get(k) == Some(&'{') || (code.get(k) == Some(&':') && code.get(k + 1) == Some(&':')) {
                        out.push(Finding { line, what: format!("a hand-built Verilog{v}") });
                    }
                }
            }
        }
    }
    out
}

fn excerpt(body: &str) -> String {
    let one: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 60 {
        format!("{}...", one.chars().take(60).collect::<String>())
    } else {
        one
    }
}

/// Where a Rust source holds hand-written Verilog.
fn findings_in_rust(src: &str) -> Vec<Finding> {
    let lexed = lex(src);
    let mut out = verilog_in_code(&lexed.code);
    for lit in &lexed.strings {
        let fmt =
            lit.after_macro.as_deref().filter(|m| ["format", "write", "writeln", "format_args", "concat"].contains(m));
        if let Some(c) = verilog_construct(&lit.body) {
            let how = fmt.map_or("a string".to_string(), |m| format!("{m}!"));
            out.push(Finding { line: lit.line, what: format!("{how} with Verilog ({c}): \"{}\"", excerpt(&lit.body)) });
        } else if let (Some(m), Some(e)) = (fmt, verilog_expression(&lit.body)) {
            out.push(Finding {
                line: lit.line,
                what: format!("{m}! building Verilog ({e}): \"{}\"", excerpt(&lit.body)),
            });
        }
        if lit.after_macro.as_deref().is_some_and(|m| m.starts_with("include_"))
            && [".v", ".sv", ".vh"].iter().any(|e| lit.body.ends_with(e))
        {
            out.push(Finding { line: lit.line, what: format!("includes Verilog file {}", lit.body) });
        }
    }
    out.sort_by_key(|f| f.line);
    out
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("hdl sits in the workspace").to_path_buf()
}

/// Every file under `hdl/` with hand-written Verilog (path relative to the
/// workspace root, with `/`), and where.
fn scan() -> Vec<(String, Vec<Finding>)> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<(String, Vec<Finding>)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).expect("readable").flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            if p.is_dir() {
                if !["target", ".git", "tests", "benches", "primitives"].contains(&name.as_str()) {
                    walk(&p, root, out);
                }
                continue;
            }
            if name.starts_with("primitives") {
                continue;
            }
            let rel = p.strip_prefix(root).expect("under the root").to_string_lossy().replace('\\', "/");
            let f = if [".v", ".sv", ".vh"].iter().any(|e| name.ends_with(e)) {
                vec![Finding { line: 1, what: "a Verilog file".into() }]
            } else if name.ends_with(".rs") {
                findings_in_rust(&std::fs::read_to_string(&p).expect("readable"))
            } else {
                vec![]
            };
            if !f.is_empty() {
                out.push((rel, f));
            }
        }
    }
    let root = root();
    let mut out = Vec::new();
    walk(&root.join("hdl"), &root, &mut out);
    out
}

/// What is wrong with `found` (files with hand-written Verilog) against the
/// exception lists: unlisted files, and listed files that are gone or hold
/// no hand-written Verilog any more.
fn problems(found: &[(String, Vec<Finding>)], listed: &[&str], exists: impl Fn(&str) -> bool) -> Vec<String> {
    let mut problems = Vec::new();
    for (file, fs) in found {
        if !listed.contains(&file.as_str()) {
            let mut p = format!("{file} holds hand-written Verilog (write the logic in #[hdl_gen]):");
            for f in fs.iter().take(8) {
                p.push_str(&format!("\n    line {}: {}", f.line, f.what));
            }
            if fs.len() > 8 {
                p.push_str(&format!("\n    ... {} more", fs.len() - 8));
            }
            problems.push(p);
        }
    }
    for file in listed {
        if !exists(file) {
            problems.push(format!("{file} is listed as an exception but does not exist: remove it from the list"));
        } else if !found.iter().any(|(f, _)| f == file) {
            problems.push(format!(
                "{file} holds no hand-written Verilog any more: remove it from the exceptions in hdl/tests/verilog_free.rs"
            ));
        }
    }
    problems
}

#[test]
fn no_hand_written_verilog_outside_the_lists() {
    let found = scan();
    let listed: Vec<&str> = KEPT.iter().map(|k| k.0).collect();
    let problems = problems(&found, &listed, |f| root().join(f).exists());
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
    eprintln!("{} files with hand-written Verilog, all listed", found.len());
}

#[test]
fn the_lists_only_shrink() {
    let f = |file: &str| (file.to_string(), vec![Finding { line: 3, what: "Verilog::Custom(".into() }]);
    let found = vec![f("hdl/src/a.rs"), f("hdl/src/b.rs")];
    assert!(problems(&found, &["hdl/src/a.rs", "hdl/src/b.rs"], |_| true).is_empty());
    let p = problems(&found, &["hdl/src/a.rs"], |_| true);
    assert!(
        p.len() == 1 && p[0].starts_with("hdl/src/b.rs holds hand-written Verilog") && p[0].contains("line 3"),
        "{p:?}"
    );
    let p = problems(&found, &["hdl/src/a.rs", "hdl/src/b.rs", "hdl/src/c.rs"], |f| f != "hdl/src/d.rs");
    assert!(p.len() == 1 && p[0].starts_with("hdl/src/c.rs holds no hand-written Verilog any more"), "{p:?}");
    let p = problems(&found, &["hdl/src/a.rs", "hdl/src/b.rs", "hdl/src/d.rs"], |f| f != "hdl/src/d.rs");
    assert!(p.len() == 1 && p[0].contains("does not exist"), "{p:?}");
}

/// Prints what the scan finds, file by file (`-- --nocapture --ignored`).
#[test]
#[ignore]
fn print_findings() {
    for (file, fs) in scan() {
        println!("{file}: {} findings", fs.len());
        for f in fs.iter().take(5) {
            println!("    line {}: {}", f.line, f.what);
        }
    }
}

#[cfg(test)]
mod detector {
    use super::*;

    fn whats(src: &str) -> Vec<String> {
        findings_in_rust(src).into_iter().map(|f| f.what).collect()
    }

    #[test]
    fn finds_each_kind() {
        assert_eq!(whats("fn hdl(&self) -> Verilog { Verilog::Custom(x) }").len(), 1);
        assert_eq!(whats("Verilog::Wrapper(Wrapper { code })").len(), 1);
        assert_eq!(whats("let e = VerilogExpression::Signal(n);").len(), 1);
        assert_eq!(whats("const V: &str = r#\"\nalways @(posedge clock) q <= d;\n\"#;").len(), 1);
        assert_eq!(whats("const V: &str = \"assign out = a & b;\";").len(), 1);
        assert_eq!(whats("let s = \"wire [7:0] x;\\nreg y;\";").len(), 1);
        assert_eq!(whats("let s = \"module top(a);\";").len(), 1);
        assert_eq!(whats("let s = format!(\"{buf}[{}:{}]\", a, b);").len(), 1);
        assert_eq!(whats("let _ = writeln!(s, \"    {a}'h{addr:04x}: x = y;\");").len(), 1);
        assert_eq!(whats("let _ = write!(s, \"csr$regs[{} +: 32]\", i);").len(), 1);
        assert_eq!(whats("let v = include_str!(\"engine.v\");").len(), 1);
        let lines: Vec<usize> =
            findings_in_rust("\n\nconst V: &str = r\"\nendmodule\";\n").iter().map(|f| f.line).collect();
        assert_eq!(lines, vec![3]);
    }

    #[test]
    fn leaves_rust_alone() {
        for src in [
            "// Verilog::Custom( in a comment\n/* assign a = b; */ fn f() {}",
            "#[hdl_gen] fn update(&mut self) { self.q.d.next = self.a.val() & self.b.val(); }",
            "let m = format!(\"{name}: no port {n}\");",
            "let c = '\"'; let d = \"wires and registers\";",
            "let w = r\"a regular expression [0-9]\";",
            "fn f<'a>(x: &'a str) -> &'a str { x }",
            "assert_eq!(x, y, \"bits [3:0] of the key\");",
            "let v = include_str!(\"table.txt\");",
        ] {
            assert!(whats(src).is_empty(), "{src}: {:?}", whats(src));
        }
    }
}
