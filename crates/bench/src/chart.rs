//! PNG line charts with plotters' bitmap backend. The font (DejaVu Sans, see
//! `assets/DejaVuSans-LICENSE.txt`) is embedded and rendered with `ab_glyph`, so no system
//! fontconfig/freetype is needed.

use std::path::Path;
use std::sync::Once;

use anyhow::{anyhow, Result};
use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::prelude::*;

static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

/// What a chart shows; the lines come from the servers' [`crate::report::Series`].
#[derive(Debug, Clone, PartialEq)]
pub struct ChartSpec {
    /// File-name-safe id (the PNG is `<id>.png`).
    pub id: String,
    /// Caption.
    pub title: String,
    /// X axis description.
    pub x_label: String,
    /// Y axis description.
    pub y_label: String,
    /// Logarithmic x axis (hot-set sizes).
    pub log_x: bool,
}

impl ChartSpec {
    /// A chart with a linear x axis.
    pub fn new(id: &str, title: &str, x_label: &str, y_label: &str) -> ChartSpec {
        ChartSpec {
            id: id.to_string(),
            title: title.to_string(),
            x_label: x_label.to_string(),
            y_label: y_label.to_string(),
            log_x: false,
        }
    }

    /// The same chart with a logarithmic x axis.
    pub fn log_x(mut self) -> ChartSpec {
        self.log_x = true;
        self
    }
}

/// Compact axis labels: 1500 → "1.5k", 2000000 → "2M".
pub fn fmt_axis(v: f64) -> String {
    let a = v.abs();
    let (scaled, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let s = if scaled.fract().abs() < 1e-9 || scaled.abs() >= 100.0 {
        format!("{scaled:.0}")
    } else if scaled.abs() >= 10.0 {
        format!("{scaled:.1}")
    } else {
        format!("{scaled:.2}")
    };
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    format!("{s}{suffix}")
}

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// Draws `lines` (label, points) into a PNG at `path`.
pub fn line_chart(
    path: &Path,
    spec: &ChartSpec,
    lines: &[(String, Vec<(f64, f64)>)],
) -> Result<()> {
    REGISTER.call_once(|| {
        // The font is a valid TTF compiled into the binary; registration cannot fail at runtime
        // unless the asset is replaced by a broken file, which the unit test catches.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
    let pts = lines.iter().flat_map(|(_, p)| p.iter());
    let (mut x0, mut x1, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, 0f64);
    for &(x, y) in pts.filter(|(x, y)| x.is_finite() && y.is_finite()) {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    if !x0.is_finite() {
        return Err(anyhow!("no points"));
    }
    if spec.log_x {
        x0 = x0.max(1e-9);
        if x1 <= x0 {
            x1 = x0 * 10.0;
        } else {
            x0 /= 1.2;
            x1 *= 1.2;
        }
    } else {
        x0 = x0.min(0.0);
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
    }
    let y1 = if y1 > 0.0 { y1 * 1.1 } else { 1.0 };
    let legend = legend_corner(lines, spec.log_x, (x0, x1), y1);
    let root = BitMapBackend::new(path, (960, 540)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| -> anyhow::Error {
        anyhow::Error::msg(format!("drawing {}: {e}", path.display()))
    };
    root.fill(&WHITE).map_err(|e| err(&e))?;
    if spec.log_x {
        draw(&root, spec, lines, (x0..x1).log_scale(), y1, legend).map_err(|e| err(&e))?;
    } else {
        draw(&root, spec, lines, x0..x1, y1, legend).map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// The upper corner (left or right) with fewer points under where the legend box goes.
fn legend_corner(
    lines: &[(String, Vec<(f64, f64)>)],
    log_x: bool,
    (x0, x1): (f64, f64),
    y1: f64,
) -> SeriesLabelPosition {
    let pos = |x: f64| {
        if log_x {
            (x.ln() - x0.ln()) / (x1.ln() - x0.ln())
        } else {
            (x - x0) / (x1 - x0)
        }
    };
    let (mut left, mut right) = (0, 0);
    for &(x, y) in lines.iter().flat_map(|(_, p)| p.iter()) {
        if y < 0.65 * y1 {
            continue;
        }
        match pos(x) {
            f if f <= 0.35 => left += 1,
            f if f >= 0.65 => right += 1,
            _ => {}
        }
    }
    if right > left {
        SeriesLabelPosition::UpperLeft
    } else {
        SeriesLabelPosition::UpperRight
    }
}

fn draw<X>(
    root: &DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>,
    spec: &ChartSpec,
    lines: &[(String, Vec<(f64, f64)>)],
    x: X,
    y1: f64,
    legend: SeriesLabelPosition,
) -> std::result::Result<(), String>
where
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(root)
        .caption(&spec.title, ("sans-serif", 24))
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(x, 0f64..y1)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(spec.x_label.as_str())
        .y_desc(spec.y_label.as_str())
        .x_label_formatter(&|v| fmt_axis(*v))
        .y_label_formatter(&|v| fmt_axis(*v))
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, (label, points)) in lines.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(|e| e.to_string())?
            .label(label.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(3))
            });
        if points.len() <= 40 {
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(|e| e.to_string())?;
        }
    }
    chart
        .configure_series_labels()
        .label_font(("sans-serif", 15))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.5))
        .position(legend)
        .draw()
        .map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_labels() {
        assert_eq!(fmt_axis(0.0), "0");
        assert_eq!(fmt_axis(250.0), "250");
        assert_eq!(fmt_axis(1500.0), "1.5k");
        assert_eq!(fmt_axis(25_000.0), "25k");
        assert_eq!(fmt_axis(2_000_000.0), "2M");
        assert_eq!(fmt_axis(0.25), "0.25");
    }

    #[test]
    fn legend_avoids_the_lines() {
        let rising = vec![("a".to_string(), vec![(0.0, 0.0), (10.0, 10.0)])];
        let r = legend_corner(&rising, false, (0.0, 10.0), 11.0);
        assert!(matches!(r, SeriesLabelPosition::UpperLeft));
        let falling = vec![("a".to_string(), vec![(0.0, 10.0), (10.0, 0.0)])];
        let f = legend_corner(&falling, false, (0.0, 10.0), 11.0);
        assert!(matches!(f, SeriesLabelPosition::UpperRight));
    }

    #[test]
    fn draws_png_files() {
        let dir = tempfile::tempdir().unwrap();
        let lines = vec![
            (
                "InnoDB".to_string(),
                vec![(100.0, 5.0), (1000.0, 4.0), (10_000.0, 1.0)],
            ),
            (
                "Strata".to_string(),
                vec![(100.0, 9.0), (1000.0, 9.0), (10_000.0, 8.5)],
            ),
        ];
        for spec in [
            ChartSpec::new("lin", "Linear", "rows", "rows/s"),
            ChartSpec::new("log", "Log", "hot rows", "lookups/s").log_x(),
        ] {
            let path = dir.path().join(format!("{}.png", spec.id));
            line_chart(&path, &spec, &lines).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(&bytes[1..4], b"PNG");
            assert!(bytes.len() > 5000, "a drawn chart, not an empty image");
        }
        let empty = dir.path().join("e.png");
        assert!(line_chart(&empty, &ChartSpec::new("e", "E", "x", "y"), &[]).is_err());
    }
}
