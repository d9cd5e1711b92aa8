//! Verilog generators for balanced trees over 256-bit vectors (population
//! count, find first/last set) and thermometer masks, shared by the blocks
//! that work on 256-slot bitmaps (the engine top).

use std::fmt::Write as _;

/// Verilog for a balanced population count of a 256-bit vector `v` into a
/// 9-bit wire `name`.
pub fn popcount(name: &str, v: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "wire [8:0] {name};");
    let _ = writeln!(s, "generate begin : pc_{name}");
    // level l has 256 >> l sums of l+1 bits, stored 9 bits apart.
    for l in 0..=8usize {
        let _ = writeln!(s, "  wire [{}:0] lv{l};", (256 >> l) * 9 - 1);
    }
    let _ = writeln!(s, "  genvar i;");
    let _ = writeln!(
        s,
        "  for (i = 0; i < 256; i = i + 1) begin : l0\n    assign lv0[9 * i +: 9] = {{8'd0, {v}[i]}};\n  end"
    );
    for l in 1..=8usize {
        let _ = writeln!(
            s,
            "  for (i = 0; i < {}; i = i + 1) begin : l{l}\n    assign lv{l}[9 * i +: 9] = lv{}[9 * (2 * i) +: 9] + lv{}[9 * (2 * i + 1) +: 9];\n  end",
            256 >> l,
            l - 1,
            l - 1
        );
    }
    let _ = writeln!(s, "  assign {name} = lv8;");
    let _ = writeln!(s, "end endgenerate");
    s
}

/// Verilog for the lowest set bit of 256-bit `v`: `{name}_any`, `{name}_at`.
pub fn first_set(name: &str, v: &str) -> String {
    first_set_of(name, v, 8)
}

/// [`first_set`] over a vector of `1 << bits` bits: `{name}_any` and
/// `{name}_at` (`bits` wide).
pub fn first_set_of(name: &str, v: &str, bits: usize) -> String {
    let n = 1usize << bits;
    let mut s = String::new();
    let _ = writeln!(s, "wire {name}_any;\nwire [{}:0] {name}_at;", bits - 1);
    let _ = writeln!(s, "generate begin : ffs_{name}");
    let _ = writeln!(s, "  wire [{}:1] val;\n  wire [{}:{bits}] idx;\n  genvar i;", 2 * n - 1, 2 * n * bits - 1);
    let _ = writeln!(
        s,
        "  for (i = 0; i < {n}; i = i + 1) begin : leaf\n    assign val[{n} + i] = {v}[i];\n    \
         assign idx[({n} + i) * {bits} +: {bits}] = i[{}:0];\n  end",
        bits - 1
    );
    let _ = writeln!(
        s,
        "  for (i = 1; i < {n}; i = i + 1) begin : node\n    assign val[i] = val[2 * i] | val[2 * i + 1];\n    \
         assign idx[i * {bits} +: {bits}] = val[2 * i] ? idx[2 * i * {bits} +: {bits}] : idx[(2 * i + 1) * {bits} +: {bits}];\n  end"
    );
    let _ = writeln!(s, "  assign {name}_any = val[1];\n  assign {name}_at = idx[{}:{bits}];", 2 * bits - 1);
    let _ = writeln!(s, "end endgenerate");
    s
}

/// Verilog for the highest set bit: the lowest of the bit-reversed vector.
pub fn last_set(name: &str, v: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "wire [255:0] {name}_rev;");
    let _ = writeln!(
        s,
        "generate begin : rev_{name}\n  genvar i;\n  for (i = 0; i < 256; i = i + 1) begin : r\n    assign {name}_rev[i] = {v}[255 - i];\n  end\nend endgenerate"
    );
    s.push_str(&first_set(&format!("{name}_r"), &format!("{name}_rev")));
    let _ = writeln!(s, "wire {name}_any = {name}_r_any;\nwire [7:0] {name}_at = 8'd255 - {name}_r_at;");
    s
}

/// Thermometer `ge_{name}[i] = (i >= x)` for an 8-bit `x`.
pub fn thermometer(name: &str, x: &str) -> String {
    format!(
        "wire [255:0] ge_{name};\nassign ge_{name}[0] = ({x} == 8'd0);\nassign ge_{name}[255] = 1'b1;\n\
         generate begin : th_{name}\n  genvar i;\n  for (i = 1; i < 255; i = i + 1) begin : t\n    \
         assign ge_{name}[i] = (i[7:0] >= {x});\n  end\nend endgenerate\n"
    )
}
