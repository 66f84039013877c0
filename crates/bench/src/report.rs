//! Results and their markdown rendering: figures per server column with ratios to the baseline
//! (InnoDB in `compare`), chart references, and the index of reports in the output directory.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::chart::{self, ChartSpec};

/// Which direction of a figure is good.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    /// Bigger is better (throughput).
    Higher,
    /// Smaller is better (latency, time, size).
    Lower,
    /// Neither (counts, descriptive values).
    Neither,
}

impl Better {
    fn label(self) -> &'static str {
        match self {
            Better::Higher => "higher",
            Better::Lower => "lower",
            Better::Neither => "",
        }
    }
}

/// One number measured by a workload on one server.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// What was measured, e.g. "average insert rate".
    pub name: String,
    /// Unit, e.g. "rows/s", "s", "MiB".
    pub unit: String,
    /// The value (`NaN` when it could not be measured).
    pub value: f64,
    /// Which direction is good.
    pub better: Better,
}

/// One line of a chart as measured on one server.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The [`ChartSpec::id`] this line belongs to.
    pub chart: String,
    /// Sub-label appended to the server's label (empty for one line per server).
    pub line: String,
    /// `(x, y)` points.
    pub points: Vec<(f64, f64)>,
}

/// The median of `v` (the mean of the middle two for an even count; NaN values are left out;
/// NaN when nothing is left).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.retain(|x| !x.is_nan());
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// A pass/fail check a workload made on one server (a consistency condition, say). A failed
/// check makes the section fail: it is printed in bold in the report and `strata-bench` exits
/// with status 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// What was checked.
    pub name: String,
    /// Whether it held.
    pub passed: bool,
    /// What was found (how many rows were checked, or what did not hold).
    pub detail: String,
}

/// Everything one workload unit produced on one server.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// The figures, in display order.
    pub figures: Vec<Figure>,
    /// Chart lines.
    pub series: Vec<Series>,
    /// Remarks about this run (printed under the table).
    pub notes: Vec<String>,
    /// Pass/fail checks, in display order.
    pub checks: Vec<Check>,
}

impl Outcome {
    /// Appends a figure.
    pub fn fig(&mut self, name: impl Into<String>, unit: &str, value: f64, better: Better) {
        self.figures.push(Figure {
            name: name.into(),
            unit: unit.to_string(),
            value,
            better,
        });
    }

    /// Appends the "server CPU per txn" and "other CPU per txn" figures of `label` (see
    /// [`crate::machine::CPU_PER_TXN_NOTE`]) from a `(server µs, other µs)` pair.
    pub fn cpu_per_txn(&mut self, label: &str, (server_us, other_us): (f64, f64)) {
        self.fig(
            format!("{label}: server CPU per txn"),
            "µs",
            server_us,
            Better::Lower,
        );
        self.fig(
            format!("{label}: other CPU per txn"),
            "µs",
            other_us,
            Better::Lower,
        );
    }

    /// Appends the CPU split of one measured interval under `label`: the server's and the
    /// load generator's CPU seconds, then the per-transaction figures of
    /// [`Outcome::cpu_per_txn`] and the client's CPU per transaction.
    pub fn cpu_split(&mut self, label: &str, split: &crate::machine::CpuSplit) {
        self.fig(
            format!("{label}: server CPU"),
            "s",
            split.server_s,
            Better::Lower,
        );
        self.fig(
            format!("{label}: client CPU"),
            "s",
            split.client_s,
            Better::Neither,
        );
        self.cpu_per_txn_split(label, split);
    }

    /// Appends "server CPU per txn", "other CPU per txn" and "client CPU per txn" of `label`.
    pub fn cpu_per_txn_split(&mut self, label: &str, split: &crate::machine::CpuSplit) {
        let (server, client, other) = split.per_txn_us();
        self.cpu_per_txn(label, (server, other));
        self.fig(
            format!("{label}: client CPU per txn"),
            "µs",
            client,
            Better::Neither,
        );
    }

    /// Appends a pass/fail check.
    pub fn check(&mut self, name: impl Into<String>, passed: bool, detail: impl Into<String>) {
        self.checks.push(Check {
            name: name.into(),
            passed,
            detail: detail.into(),
        });
    }

    /// The checks that failed.
    pub fn failed_checks(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| !c.passed)
    }

    /// One outcome from several rounds of the same work: every figure and chart point is the
    /// median of its values over the rounds (figures and points missing from a round are
    /// left out of that median). Notes are kept once each.
    pub fn median_of(rounds: &[Outcome]) -> Outcome {
        let mut out = Outcome::default();
        let Some(first) = rounds.first() else {
            return out;
        };
        for f in &first.figures {
            let vals: Vec<f64> = rounds.iter().filter_map(|r| r.value(&f.name)).collect();
            out.fig(f.name.clone(), &f.unit, median(vals), f.better);
        }
        for (si, s) in first.series.iter().enumerate() {
            let points = s
                .points
                .iter()
                .enumerate()
                .map(|(pi, &(x, _))| {
                    let ys = rounds
                        .iter()
                        .filter_map(|r| r.series.get(si)?.points.get(pi).map(|p| p.1))
                        .collect();
                    (x, median(ys))
                })
                .collect();
            out.line(&s.chart, &s.line, points);
        }
        for r in rounds {
            for n in &r.notes {
                if !out.notes.contains(n) {
                    out.notes.push(n.clone());
                }
            }
        }
        // A check passes only when it passed in every round; the first failure is kept.
        for r in rounds {
            for c in &r.checks {
                match out.checks.iter_mut().find(|o| o.name == c.name) {
                    None => out.checks.push(c.clone()),
                    Some(o) if o.passed && !c.passed => *o = c.clone(),
                    Some(_) => {}
                }
            }
        }
        out
    }

    /// Appends a chart line.
    pub fn line(&mut self, chart: &str, line: &str, points: Vec<(f64, f64)>) {
        self.series.push(Series {
            chart: chart.to_string(),
            line: line.to_string(),
            points,
        });
    }

    /// The value of the named figure, if present.
    pub fn value(&self, name: &str) -> Option<f64> {
        self.figures
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.value)
    }
}

/// A server the workloads ran against (one value column of every table).
#[derive(Debug, Clone)]
pub struct Column {
    /// Short label: "InnoDB", "MyRocks", "Strata", or the server's name in `run` mode.
    pub label: String,
    /// `SELECT VERSION()`.
    pub version: String,
    /// How it was configured (command-line options), for the setup table.
    pub config: String,
}

/// The results of one workload unit across all columns.
#[derive(Debug, Clone)]
pub struct Section {
    /// Heading, e.g. "iibench: purchases_index, 1 row per INSERT".
    pub title: String,
    /// The workload's parameters.
    pub params: Vec<(String, String)>,
    /// The charts drawn from the columns' series.
    pub charts: Vec<ChartSpec>,
    /// One result per column (an error message when the workload failed on that server).
    pub results: Vec<Result<Outcome, String>>,
    /// Remarks that apply to the workload as a whole.
    pub notes: Vec<String>,
}

/// A complete report.
#[derive(Debug, Clone)]
pub struct Report {
    /// Top heading.
    pub title: String,
    /// Free-text remark shown at the top (e.g. "small smoke run on a busy machine").
    pub note: Option<String>,
    /// Setup rows (date, machine, cache budget, command line …).
    pub setup: Vec<(String, String)>,
    /// The servers.
    pub columns: Vec<Column>,
    /// Index of the column every other column is compared to (InnoDB), if any.
    pub baseline: Option<usize>,
    /// The workload sections.
    pub sections: Vec<Section>,
}

/// Formats a number for a table: thousands separators from 1000 up, about three significant
/// digits below, `–` for NaN/infinite.
pub fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        return "–".to_string();
    }
    let a = v.abs();
    if a >= 1000.0 {
        let digits = format!("{:.0}", a);
        let mut out = String::new();
        for (i, ch) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(ch);
        }
        if v < 0.0 {
            out.insert(0, '-');
        }
        out
    } else if a >= 100.0 || (v.fract() == 0.0 && a > 0.0) {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else if a == 0.0 {
        "0".to_string()
    } else {
        let decimals = (2 - a.log10().floor() as i32).clamp(3, 9) as usize;
        format!("{v:.decimals$}")
    }
}

/// `value / base` as `1.23×`; `–` when either is missing or the base is zero.
pub fn fmt_ratio(value: f64, base: f64) -> String {
    if !value.is_finite() || !base.is_finite() || base == 0.0 {
        return "–".to_string();
    }
    format!("{:.2}×", value / base)
}

/// A markdown table; columns after `left_cols` are right-aligned. `|` in cells is escaped.
pub fn markdown_table(headers: &[String], rows: &[Vec<String>], left_cols: usize) -> String {
    let esc = |s: &str| s.replace('|', "\\|");
    let mut out = String::new();
    out.push('|');
    for h in headers {
        let _ = write!(out, " {} |", esc(h));
    }
    out.push_str("\n|");
    for i in 0..headers.len() {
        out.push_str(if i < left_cols { "---|" } else { "---:|" });
    }
    out.push('\n');
    for row in rows {
        out.push('|');
        for i in 0..headers.len() {
            let _ = write!(
                out,
                " {} |",
                esc(row.get(i).map(String::as_str).unwrap_or(""))
            );
        }
        out.push('\n');
    }
    out
}

impl Section {
    /// The figure table: one row per figure name (in order of first appearance), one value
    /// column per server, and a ratio column after each non-baseline server.
    pub fn figure_table(&self, columns: &[Column], baseline: Option<usize>) -> String {
        let mut names: Vec<(String, String, Better)> = Vec::new();
        for r in self.results.iter().flatten() {
            for f in &r.figures {
                if !names.iter().any(|(n, _, _)| *n == f.name) {
                    names.push((f.name.clone(), f.unit.clone(), f.better));
                }
            }
        }
        let mut headers = vec![
            "figure".to_string(),
            "unit".to_string(),
            "better".to_string(),
        ];
        for (i, c) in columns.iter().enumerate() {
            headers.push(c.label.clone());
            if let Some(b) = baseline.filter(|&b| b != i) {
                headers.push(format!("{} / {}", c.label, columns[b].label));
            }
        }
        let value = |col: usize, name: &str| -> f64 {
            match self.results.get(col) {
                Some(Ok(o)) => o.value(name).unwrap_or(f64::NAN),
                _ => f64::NAN,
            }
        };
        let rows: Vec<Vec<String>> = names
            .iter()
            .map(|(name, unit, better)| {
                let mut row = vec![name.clone(), unit.clone(), better.label().to_string()];
                for i in 0..columns.len() {
                    let v = value(i, name);
                    row.push(fmt_num(v));
                    if let Some(b) = baseline.filter(|&b| b != i) {
                        // Counts and descriptive values get no ratio.
                        row.push(if *better == Better::Neither {
                            String::new()
                        } else {
                            fmt_ratio(v, value(b, name))
                        });
                    }
                }
                row
            })
            .collect();
        markdown_table(&headers, &rows, 3)
    }

    /// The check table (one row per check, one column per server: `pass` or `**FAIL**` with
    /// what was found), or `None` when no server made a check.
    pub fn check_table(&self, columns: &[Column]) -> Option<String> {
        let mut names: Vec<String> = Vec::new();
        for r in self.results.iter().flatten() {
            for c in &r.checks {
                if !names.contains(&c.name) {
                    names.push(c.name.clone());
                }
            }
        }
        if names.is_empty() {
            return None;
        }
        let mut headers = vec!["check".to_string()];
        headers.extend(columns.iter().map(|c| c.label.clone()));
        let rows: Vec<Vec<String>> = names
            .iter()
            .map(|name| {
                let mut row = vec![name.clone()];
                for i in 0..columns.len() {
                    let cell = match self.results.get(i) {
                        Some(Ok(o)) => match o.checks.iter().find(|c| c.name == *name) {
                            Some(c) if c.passed => format!("pass ({})", c.detail),
                            Some(c) => format!("**FAIL**: {}", c.detail),
                            None => "–".into(),
                        },
                        _ => "not run".into(),
                    };
                    row.push(cell);
                }
                row
            })
            .collect();
        Some(markdown_table(&headers, &rows, columns.len() + 1))
    }

    /// Whether the section failed on some server: an error, or a failed check.
    pub fn failed(&self) -> bool {
        self.results.iter().any(|r| match r {
            Err(_) => true,
            Ok(o) => o.failed_checks().next().is_some(),
        })
    }

    /// The lines of one chart: every column's series for it, labelled by column (and line).
    pub fn chart_lines(&self, columns: &[Column], chart: &str) -> Vec<(String, Vec<(f64, f64)>)> {
        let mut lines = Vec::new();
        for (i, r) in self.results.iter().enumerate() {
            let Ok(o) = r else { continue };
            for s in o.series.iter().filter(|s| s.chart == chart) {
                if s.points.is_empty() {
                    continue;
                }
                let label = match (columns.len(), s.line.is_empty()) {
                    (_, true) => columns[i].label.clone(),
                    (1, false) => s.line.clone(),
                    _ => format!("{} {}", columns[i].label, s.line),
                };
                lines.push((label, s.points.clone()));
            }
        }
        lines
    }
}

impl Report {
    /// Renders the report; `chart_file(section, chart)` gives the relative path of a chart
    /// image, or `None` when it was not drawn.
    pub fn to_markdown(&self, chart_file: &dyn Fn(usize, &ChartSpec) -> Option<String>) -> String {
        let mut md = format!("# {}\n\n", self.title);
        if let Some(note) = &self.note {
            let _ = writeln!(md, "> **Note:** {note}\n");
        }
        md.push_str("## Setup\n\n");
        let rows: Vec<Vec<String>> = self
            .setup
            .iter()
            .map(|(k, v)| vec![k.clone(), v.clone()])
            .collect();
        md.push_str(&markdown_table(&["".into(), "".into()], &rows, 2));
        md.push_str("\nServers:\n\n");
        let rows: Vec<Vec<String>> = self
            .columns
            .iter()
            .map(|c| {
                vec![
                    c.label.clone(),
                    c.version.clone(),
                    format!("`{}`", c.config),
                ]
            })
            .collect();
        md.push_str(&markdown_table(
            &["server".into(), "version".into(), "configuration".into()],
            &rows,
            3,
        ));
        if let Some(b) = self.baseline {
            let _ = writeln!(
                md,
                "\nRatio columns are `server / {}` for the same figure; whether a ratio above 1 \
                 is good depends on the `better` column.",
                self.columns[b].label
            );
        }
        for (si, s) in self.sections.iter().enumerate() {
            let _ = write!(md, "\n## {}\n\n", s.title);
            if !s.params.is_empty() {
                let p: Vec<String> = s.params.iter().map(|(k, v)| format!("{k} = {v}")).collect();
                let _ = writeln!(md, "Parameters: {}.\n", p.join(", "));
            }
            md.push_str(&s.figure_table(&self.columns, self.baseline));
            if let Some(t) = s.check_table(&self.columns) {
                md.push('\n');
                md.push_str(&t);
            }
            for (i, r) in s.results.iter().enumerate() {
                match r {
                    Err(e) => {
                        let _ = writeln!(md, "\n**{}: failed:** {}", self.columns[i].label, e);
                    }
                    Ok(o) => {
                        for c in o.failed_checks() {
                            let _ = writeln!(
                                md,
                                "\n**{}: FAILED check — {}:** {}",
                                self.columns[i].label, c.name, c.detail
                            );
                        }
                    }
                }
            }
            for c in &s.charts {
                if let Some(f) = chart_file(si, c) {
                    let _ = writeln!(md, "\n![{}]({})", c.title, f);
                }
            }
            let mut notes: Vec<String> = s.notes.clone();
            let ok: Vec<(usize, &Outcome)> = s
                .results
                .iter()
                .enumerate()
                .filter_map(|(i, r)| r.as_ref().ok().map(|o| (i, o)))
                .collect();
            for &(i, o) in &ok {
                for n in &o.notes {
                    // A remark every server made is printed once, without a server label.
                    let everywhere = ok.iter().all(|(_, p)| p.notes.contains(n));
                    let n = if everywhere || self.columns.len() == 1 {
                        n.clone()
                    } else {
                        format!("{}: {}", self.columns[i].label, n)
                    };
                    if !notes.contains(&n) {
                        notes.push(n);
                    }
                }
            }
            if !notes.is_empty() {
                md.push_str("\nNotes:\n\n");
                for n in notes {
                    let _ = writeln!(md, "- {n}");
                }
            }
        }
        md
    }
}

/// A file stem `base` that names no existing report in `dir` (`base`, `base-2`, `base-3` …).
pub fn unique_stem(dir: &Path, base: &str) -> String {
    let mut stem = base.to_string();
    let mut n = 2;
    while dir.join(format!("{stem}.md")).exists() || dir.join(&stem).exists() {
        stem = format!("{base}-{n}");
        n += 1;
    }
    stem
}

/// The marker line in `README.md` under which new reports are listed, newest first.
pub const INDEX_MARKER: &str = "<!-- strata-bench index: new reports are added below -->";

/// Returns `readme` with `entry` inserted under the index marker (appending a "Reports"
/// section with the marker when it is missing).
pub fn add_index_entry(readme: &str, entry: &str) -> String {
    if let Some(pos) = readme.find(INDEX_MARKER) {
        let after = pos + INDEX_MARKER.len();
        let (head, tail) = readme.split_at(after);
        format!("{head}\n{entry}{tail}")
    } else {
        let mut s = readme.to_string();
        if !s.is_empty() && !s.ends_with('\n') {
            s.push('\n');
        }
        if !s.is_empty() {
            s.push('\n');
        }
        if s.is_empty() {
            s.push_str("# Benchmark reports\n\n");
        }
        let _ = write!(s, "## Reports\n\n{INDEX_MARKER}\n{entry}\n");
        s
    }
}

/// Writes `<dir>/<stem>.md` and its charts under `<dir>/<stem>/`, and lists the report in
/// `<dir>/README.md`. Returns the markdown file's path.
pub fn write_report(report: &Report, dir: &Path, stem: &str, summary: &str) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let img_dir = dir.join(stem);
    let mut drawn: Vec<(usize, String, String)> = Vec::new();
    for (si, s) in report.sections.iter().enumerate() {
        for c in &s.charts {
            let lines = s.chart_lines(&report.columns, &c.id);
            if lines.is_empty() {
                continue;
            }
            std::fs::create_dir_all(&img_dir)?;
            let file = format!("{}.png", c.id);
            let path = img_dir.join(&file);
            match chart::line_chart(&path, c, &lines) {
                Ok(()) => drawn.push((si, c.id.clone(), format!("{stem}/{file}"))),
                Err(e) => eprintln!("strata-bench: chart {} not drawn: {e:#}", c.id),
            }
        }
    }
    let md = report.to_markdown(&|si, c| {
        drawn
            .iter()
            .find(|(s, id, _)| *s == si && *id == c.id)
            .map(|(_, _, f)| f.clone())
    });
    let path = dir.join(format!("{stem}.md"));
    std::fs::write(&path, md).with_context(|| format!("writing {}", path.display()))?;
    let readme = dir.join("README.md");
    let old = std::fs::read_to_string(&readme).unwrap_or_default();
    let entry = format!("- [{stem}]({stem}.md): {summary}");
    std::fs::write(&readme, add_index_entry(&old, &entry))
        .with_context(|| format!("writing {}", readme.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_formatting() {
        assert_eq!(fmt_num(1234567.4), "1,234,567");
        assert_eq!(fmt_num(-12345.0), "-12,345");
        assert_eq!(fmt_num(1000.0), "1,000");
        assert_eq!(fmt_num(999.6), "1000");
        assert_eq!(fmt_num(123.4), "123");
        assert_eq!(fmt_num(12.34), "12.3");
        assert_eq!(fmt_num(1.234), "1.23");
        assert_eq!(fmt_num(4.0), "4");
        assert_eq!(fmt_num(0.0), "0");
        assert_eq!(fmt_num(0.01234), "0.0123");
        assert_eq!(fmt_num(0.5), "0.500");
        assert_eq!(fmt_num(f64::NAN), "–");
        assert_eq!(fmt_ratio(30.0, 10.0), "3.00×");
        assert_eq!(fmt_ratio(1.0, 0.0), "–");
        assert_eq!(fmt_ratio(f64::NAN, 2.0), "–");
    }

    #[test]
    fn table_layout() {
        let t = markdown_table(
            &["a".into(), "b|c".into()],
            &[vec!["x".into(), "1".into()], vec!["y".into()]],
            1,
        );
        assert_eq!(t, "| a | b\\|c |\n|---|---:|\n| x | 1 |\n| y |  |\n");
    }

    fn outcome(rate: f64) -> Outcome {
        let mut o = Outcome::default();
        o.fig("insert rate", "rows/s", rate, Better::Higher);
        o.fig("size", "MiB", 10.0, Better::Lower);
        o.line("rate", "", vec![(1.0, rate)]);
        o.fig("rows", "", 5.0, Better::Neither);
        o.notes.push("same note".into());
        o
    }

    fn columns() -> Vec<Column> {
        ["InnoDB", "MyRocks", "Strata"]
            .iter()
            .map(|l| Column {
                label: l.to_string(),
                version: "v".into(),
                config: "--x".into(),
            })
            .collect()
    }

    #[test]
    fn figure_table_with_ratios_and_failures() {
        let s = Section {
            title: "t".into(),
            params: vec![],
            charts: vec![],
            results: vec![Ok(outcome(100.0)), Err("boom".into()), Ok(outcome(350.0))],
            notes: vec![],
        };
        let t = s.figure_table(&columns(), Some(0));
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[0],
            "| figure | unit | better | InnoDB | MyRocks | MyRocks / InnoDB | Strata | Strata / InnoDB |"
        );
        assert_eq!(
            lines[2],
            "| insert rate | rows/s | higher | 100 | – | – | 350 | 3.50× |"
        );
        assert_eq!(lines[3], "| size | MiB | lower | 10 | – | – | 10 | 1.00× |");
        let chart = s.chart_lines(&columns(), "rate");
        assert_eq!(chart.len(), 2);
        assert_eq!(chart[1].0, "Strata");
    }

    #[test]
    fn report_markdown_has_sections_errors_and_charts() {
        let spec = ChartSpec::new("rate", "Insert rate", "rows", "rows/s");
        let mut strata = outcome(2.0);
        strata.notes.push("only here".into());
        let r = Report {
            title: "bench".into(),
            note: Some("smoke run".into()),
            setup: vec![("date".into(), "today".into())],
            columns: columns(),
            baseline: Some(0),
            sections: vec![Section {
                title: "iibench".into(),
                params: vec![("clients".into(), "5".into())],
                charts: vec![spec],
                results: vec![Ok(outcome(1.0)), Err("boom".into()), Ok(strata)],
                notes: vec!["general".into()],
            }],
        };
        let md = r.to_markdown(&|_, c| Some(format!("img/{}.png", c.id)));
        assert!(md.starts_with("# bench\n\n> **Note:** smoke run"));
        assert!(md.contains("## iibench\n\nParameters: clients = 5.\n"));
        assert!(md.contains("**MyRocks: failed:** boom"));
        assert!(md.contains("![Insert rate](img/rate.png)"));
        assert!(
            md.contains("- general\n- same note\n- Strata: only here\n"),
            "{md}"
        );
    }

    #[test]
    fn checks_are_tabled_and_failures_shouted() {
        let mut good = outcome(1.0);
        good.check("condition 1", true, "10 warehouses");
        let mut bad = outcome(2.0);
        bad.check("condition 1", false, "warehouse 3: 5.00 ≠ 6.00");
        let s = Section {
            title: "tpcc".into(),
            params: vec![],
            charts: vec![],
            results: vec![Ok(good.clone()), Err("boom".into()), Ok(bad.clone())],
            notes: vec![],
        };
        assert!(s.failed());
        let t = s.check_table(&columns()).unwrap();
        assert!(t.contains(
            "| condition 1 | pass (10 warehouses) | not run | **FAIL**: warehouse 3: 5.00 ≠ 6.00 |"
        ), "{t}");
        let r = Report {
            title: "t".into(),
            note: None,
            setup: vec![],
            columns: columns(),
            baseline: Some(0),
            sections: vec![s],
        };
        let md = r.to_markdown(&|_, _| None);
        assert!(
            md.contains("**Strata: FAILED check — condition 1:** warehouse 3"),
            "{md}"
        );
        let ok = Section {
            title: "x".into(),
            params: vec![],
            charts: vec![],
            results: vec![Ok(good.clone())],
            notes: vec![],
        };
        assert!(!ok.failed());
        assert!(ok.check_table(&columns()[..1]).is_some());
        let m = Outcome::median_of(&[good.clone(), bad, good]);
        assert_eq!(m.checks.len(), 1);
        assert!(!m.checks[0].passed, "one failed round fails the check");
        assert!(outcome(1.0).failed_checks().next().is_none());
    }

    #[test]
    fn index_entries_go_under_the_marker_newest_first() {
        let fresh = add_index_entry("", "- [a](a.md)");
        assert!(fresh.starts_with("# Benchmark reports\n"));
        assert!(fresh.ends_with(&format!("{INDEX_MARKER}\n- [a](a.md)\n")));
        let two = add_index_entry(&fresh, "- [b](b.md)");
        assert!(two.ends_with(&format!("{INDEX_MARKER}\n- [b](b.md)\n- [a](a.md)\n")));
        let doc = add_index_entry("# How to run\n\ntext", "- [c](c.md)");
        assert!(doc.starts_with("# How to run\n\ntext\n\n## Reports\n"));
    }

    #[test]
    fn unique_stems() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(unique_stem(dir.path(), "x"), "x");
        std::fs::write(dir.path().join("x.md"), "").unwrap();
        std::fs::create_dir(dir.path().join("x-2")).unwrap();
        assert_eq!(unique_stem(dir.path(), "x"), "x-3");
    }

    #[test]
    fn rounds_merge_into_medians() {
        let round = |tps: f64, y: f64, note: &str| {
            let mut o = Outcome::default();
            o.fig("tps", "1/s", tps, Better::Higher);
            o.line("c", "", vec![(1.0, y), (8.0, y * 2.0)]);
            o.notes.push(note.into());
            o
        };
        let m = Outcome::median_of(&[
            round(10.0, 1.0, "a"),
            round(30.0, 5.0, "a"),
            round(20.0, 3.0, "b"),
        ]);
        assert_eq!(m.value("tps"), Some(20.0));
        assert_eq!(m.series[0].points, vec![(1.0, 3.0), (8.0, 6.0)]);
        assert_eq!(m.notes, vec!["a".to_string(), "b".to_string()]);
        assert_eq!(median(vec![4.0, 1.0, f64::NAN, 3.0, 2.0]), 2.5);
        assert!(median(vec![f64::NAN]).is_nan());
        assert!(Outcome::median_of(&[]).figures.is_empty());
    }
}
