//! A small hand-written SVG line plot (no plotting dependency).

use std::fmt::Write as _;

use ferroce_sim::bench::LossPoint;

/// Goodput (fraction of line rate) against loss for each MTU: ferroce, GBN
/// and ideal.
pub fn goodput_svg(sweep: &[LossPoint]) -> String {
    lines_svg(
        sweep,
        |p| p.loss,
        |p| p.mtu,
        &[
            ("ferroce", "#1f77b4", |p: &LossPoint| p.ferroce_goodput),
            ("go-back-N", "#d62728", |p: &LossPoint| p.gbn_goodput),
            ("ideal", "#999999", |p: &LossPoint| p.ideal),
        ],
    )
}

/// A series of a plot: name, colour and the value of a point.
pub type Series<'a, P> = (&'a str, &'a str, fn(&P) -> f64);

/// Goodput against loss, one line per series and MTU (later MTUs dashed).
pub fn lines_svg<P>(sweep: &[P], loss_of: fn(&P) -> f64, mtu_of: fn(&P) -> u32, series: &[Series<'_, P>]) -> String {
    let (w, h, l, r, t, b) = (640.0, 400.0, 60.0, 170.0, 20.0, 50.0);
    let pw = w - l - r;
    let ph = h - t - b;
    let max_loss = sweep.iter().map(loss_of).fold(0.0, f64::max).max(1e-9);
    let x = |loss: f64| l + pw * loss / max_loss;
    let y = |g: f64| t + ph * (1.0 - g.clamp(0.0, 1.0));
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    for i in 0..=5 {
        let g = i as f64 / 5.0;
        let _ = writeln!(
            s,
            r##"<line x1="{l}" y1="{0}" x2="{1}" y2="{0}" stroke="#ddd"/><text x="{2}" y="{3}" text-anchor="end">{g:.1}</text>"##,
            y(g),
            l + pw,
            l - 6.0,
            y(g) + 4.0
        );
        let lv = max_loss * i as f64 / 5.0;
        let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="middle">{:.2}</text>"#, x(lv), t + ph + 18.0, lv);
    }
    let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="middle">loss probability</text>"#, l + pw / 2.0, h - 10.0);
    let _ = writeln!(
        s,
        r#"<text x="15" y="{}" transform="rotate(-90 15 {})" text-anchor="middle">goodput / line rate</text>"#,
        t + ph / 2.0,
        t + ph / 2.0
    );
    let mut mtus: Vec<u32> = sweep.iter().map(mtu_of).collect();
    mtus.dedup();
    let mut legend_y = t + 10.0;
    for (mi, mtu) in mtus.iter().enumerate() {
        let pts: Vec<&P> = sweep.iter().filter(|p| mtu_of(p) == *mtu).collect();
        let dash = if mi == 0 { "" } else { r#" stroke-dasharray="6 3""# };
        for &(name, color, get) in series {
            let path: Vec<String> = pts.iter().map(|p| format!("{:.1},{:.1}", x(loss_of(p)), y(get(p)))).collect();
            let _ = writeln!(
                s,
                r#"<polyline fill="none" stroke="{color}" stroke-width="2"{dash} points="{}"/>"#,
                path.join(" ")
            );
            let _ = writeln!(
                s,
                r#"<line x1="{}" y1="{legend_y}" x2="{}" y2="{legend_y}" stroke="{color}" stroke-width="2"{dash}/><text x="{}" y="{}">{name}, MTU {mtu}</text>"#,
                w - r + 10.0,
                w - r + 35.0,
                w - r + 40.0,
                legend_y + 4.0
            );
            legend_y += 18.0;
        }
    }
    s.push_str("</svg>\n");
    s
}
