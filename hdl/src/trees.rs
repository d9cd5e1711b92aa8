//! Verilog generators for balanced trees over 256-bit vectors (population
//! count, find first/last set) and thermometer masks, shared by the blocks
//! that work on 256-slot bitmaps (`retx`, `tx_path`).

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
    let mut s = String::new();
    let _ = writeln!(s, "wire {name}_any;\nwire [7:0] {name}_at;");
    let _ = writeln!(s, "generate begin : ffs_{name}");
    let _ = writeln!(s, "  wire [511:1] val;\n  wire [4095:8] idx;\n  genvar i;");
    let _ = writeln!(
        s,
        "  for (i = 0; i < 256; i = i + 1) begin : leaf\n    assign val[256 + i] = {v}[i];\n    assign idx[(256 + i) * 8 +: 8] = i[7:0];\n  end"
    );
    let _ = writeln!(
        s,
        "  for (i = 1; i < 256; i = i + 1) begin : node\n    assign val[i] = val[2 * i] | val[2 * i + 1];\n    \
         assign idx[i * 8 +: 8] = val[2 * i] ? idx[2 * i * 8 +: 8] : idx[(2 * i + 1) * 8 +: 8];\n  end"
    );
    let _ = writeln!(s, "  assign {name}_any = val[1];\n  assign {name}_at = idx[15:8];");
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
