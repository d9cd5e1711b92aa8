//! The benchmark plots, drawn with `plotters` as SVG and PNG.

use std::path::Path;

use anyhow::Context;
use ferroce_sim::bench::LossPoint;
use plotters::coord::Shift;
use plotters::prelude::*;

/// A series of a plot: name, colour (0xRRGGBB) and the value of a point.
pub type Series<'a, P> = (&'a str, u32, fn(&P) -> f64);

const SIZE: (u32, u32) = (720, 440);
const FONT: &str = "sans-serif";

/// What the axes and the groups of lines are called.
#[derive(Debug, Clone, Copy)]
pub struct Axes {
    pub x: &'static str,
    pub y: &'static str,
    /// Lines of later groups are dashed; the legend names the group.
    pub group: &'static str,
}

/// The goodput plots' axes.
pub const GOODPUT: Axes = Axes { x: "loss probability", y: "goodput / line rate", group: "MTU" };

/// Goodput (fraction of line rate) against loss for each MTU: ferroce, GBN
/// and ideal; writes `<stem>.svg` and `<stem>.png` in `dir`.
pub fn goodput(sweep: &[LossPoint], dir: &Path, stem: &str) -> anyhow::Result<()> {
    lines(
        sweep,
        GOODPUT,
        |p| p.loss,
        |p| p.mtu,
        &[
            ("ferroce", 0x1f77b4, |p: &LossPoint| p.ferroce_goodput),
            ("go-back-N", 0xd62728, |p: &LossPoint| p.gbn_goodput),
            ("ideal", 0x999999, |p: &LossPoint| p.ideal),
        ],
        dir,
        stem,
    )
}

/// One point of a scale plot: a loss rate, the host count and each
/// transport's speed relative to the ideal (ideal JCT / JCT, median of the
/// seeds), in the order of [`SCALE_SERIES`].
#[derive(Debug, Clone)]
pub struct ScalePoint {
    pub loss: f64,
    pub hosts: u32,
    pub speed: [f64; SCALE_N],
}

/// How many transports the scale plots draw.
pub const SCALE_N: usize = 8;

/// The transports of the scale plots, as `bench_scale` labels them, with
/// their colours.
pub const SCALE_SERIES: [(&str, u32); SCALE_N] = [
    ("ferroce_8p", 0x1f77b4),
    ("ferroce_8p_v0", 0x7f7f7f),
    ("ferroce_4p", 0x17becf),
    ("ferroce_2p", 0x9467bd),
    ("ferroce_1p", 0x8c564b),
    ("irn", 0x2ca02c),
    ("rocev2_gbn_dcqcn", 0xd62728),
    ("rocev2_gbn_dcqcn_pfc", 0xff7f0e),
];

/// Speed relative to the ideal against i.i.d. loss, one line per transport
/// and host count; writes `<stem>.svg` and `<stem>.png` in `dir`.
pub fn scale(points: &[ScalePoint], dir: &Path, stem: &str) -> anyhow::Result<()> {
    let get: [fn(&ScalePoint) -> f64; SCALE_N] = [
        |p| p.speed[0],
        |p| p.speed[1],
        |p| p.speed[2],
        |p| p.speed[3],
        |p| p.speed[4],
        |p| p.speed[5],
        |p| p.speed[6],
        |p| p.speed[7],
    ];
    let series: Vec<Series<'_, ScalePoint>> =
        SCALE_SERIES.iter().zip(get).map(|(&(name, rgb), f)| (name, rgb, f)).collect();
    let axes = Axes { x: "end-to-end loss probability (i.i.d.)", y: "ideal JCT / JCT", group: "hosts" };
    lines(points, axes, |p| p.loss, |p| p.hosts, &series, dir, stem)
}

/// Goodput against loss, one line per series and MTU (later MTUs dashed);
/// writes `<stem>.svg` and `<stem>.png` in `dir`.
pub fn lines<P>(
    sweep: &[P],
    axes: Axes,
    loss_of: fn(&P) -> f64,
    mtu_of: fn(&P) -> u32,
    series: &[Series<'_, P>],
    dir: &Path,
    stem: &str,
) -> anyhow::Result<()> {
    // The PNG's text is rasterised from this face, so no system font is needed.
    plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| anyhow::anyhow!("the embedded DejaVu Sans does not load"))?;
    let mut svg = String::new();
    draw(SVGBackend::with_string(&mut svg, SIZE).into_drawing_area(), sweep, axes, loss_of, mtu_of, series)?;
    let svg_path = dir.join(format!("{stem}.svg"));
    std::fs::write(&svg_path, svg + "\n").with_context(|| format!("writing {}", svg_path.display()))?;
    let png_path = dir.join(format!("{stem}.png"));
    draw(BitMapBackend::new(&png_path, SIZE).into_drawing_area(), sweep, axes, loss_of, mtu_of, series)
        .with_context(|| format!("writing {}", png_path.display()))
}

fn draw<DB: DrawingBackend, P>(
    root: DrawingArea<DB, Shift>,
    sweep: &[P],
    axes: Axes,
    loss_of: fn(&P) -> f64,
    mtu_of: fn(&P) -> u32,
    series: &[Series<'_, P>],
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow::anyhow!("plotting: {e}");
    root.fill(&WHITE).map_err(err)?;
    let max_loss = sweep.iter().map(loss_of).fold(0.0, f64::max).max(1e-9);
    let mut chart = ChartBuilder::on(&root)
        .margin(12)
        .margin_right(30)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..max_loss, 0.0..1.0)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(axes.x)
        .y_desc(axes.y)
        .x_label_formatter(&|v| format!("{v:.3}"))
        .y_label_formatter(&|v| format!("{v:.1}"))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;
    let mut mtus: Vec<u32> = sweep.iter().map(mtu_of).collect();
    mtus.dedup();
    for (mi, &mtu) in mtus.iter().enumerate() {
        let pts: Vec<&P> = sweep.iter().filter(|p| mtu_of(p) == mtu).collect();
        for &(name, rgb, get) in series {
            let colour = RGBColor((rgb >> 16) as u8, (rgb >> 8) as u8, rgb as u8);
            let style = colour.stroke_width(2);
            let points: Vec<(f64, f64)> = pts.iter().map(|p| (loss_of(p), get(p).clamp(0.0, 1.0))).collect();
            let label = format!("{name}, {} {mtu}", axes.group);
            let drawn = if mi == 0 {
                chart.draw_series(LineSeries::new(points, style)).map_err(err)?
            } else {
                chart.draw_series(DashedLineSeries::new(points, 6, 3, style)).map_err(err)?
            };
            drawn.label(label).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerLeft)
        .label_font((FONT, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goodput_plot_is_written_as_svg_and_png() {
        let dir = crate::root().join("target").join(format!("plot-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p =
            |mtu, loss, f, g| LossPoint { mtu, loss, ferroce_goodput: f, gbn_goodput: g, ideal: 0.9 * (1.0 - loss) };
        let sweep =
            [p(1024, 0.0, 0.9, 0.9), p(1024, 0.1, 0.8, 0.02), p(4096, 0.0, 0.97, 0.97), p(4096, 0.1, 0.87, 0.07)];
        goodput(&sweep, &dir, "g").unwrap();
        let svg = std::fs::read_to_string(dir.join("g.svg")).unwrap();
        assert!(svg.starts_with("<svg"), "{svg}");
        for label in ["ferroce, MTU 1024", "go-back-N, MTU 4096", "ideal, MTU 4096", "loss probability"] {
            assert!(svg.contains(label), "the SVG has {label:?}");
        }
        // Three solid lines and their legend marks, then the second MTU's
        // three lines drawn as dashes, each its own segment.
        assert!(svg.matches("<polyline").count() > 6 + 6, "the second MTU's lines are dashed");
        let png = std::fs::read(dir.join("g.png")).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), SIZE.0, "PNG width");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
