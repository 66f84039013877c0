//! Stable-toolchain driver of the fuzz entry points: every seed in `corpus/<target>/`, then
//! random mutations of the seeds (bit flips, byte insertions/deletions, splices, truncation)
//! for `STRATA_FUZZ_SECONDS` per target (default 5) or `STRATA_FUZZ_ITERS` inputs. A panic
//! prints the input (hex) and saves it under `target/fuzz-crash-<target>-<n>`; add it to the
//! corpus and as a regression case in `tests/regressions.rs`.

use std::path::Path;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};

fn seeds(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(target);
    let mut out: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    out.sort();
    assert!(!out.is_empty(), "empty corpus {}", dir.display());
    out
}

fn mutate(rng: &mut impl Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut v = seeds[rng.gen_range(0..seeds.len())].clone();
    for _ in 0..rng.gen_range(1..8) {
        match rng.gen_range(0..7) {
            0 if !v.is_empty() => {
                let i = rng.gen_range(0..v.len());
                v[i] ^= 1 << rng.gen_range(0..8);
            }
            1 => {
                let i = rng.gen_range(0..=v.len());
                v.insert(i, rng.gen());
            }
            2 if !v.is_empty() => {
                let i = rng.gen_range(0..v.len());
                v.remove(i);
            }
            3 if !v.is_empty() => {
                let n = rng.gen_range(0..=v.len());
                v.truncate(n);
            }
            4 => {
                // splice a piece of another seed
                let o = &seeds[rng.gen_range(0..seeds.len())];
                if !o.is_empty() {
                    let a = rng.gen_range(0..o.len());
                    let b = rng.gen_range(a..=o.len());
                    let i = rng.gen_range(0..=v.len());
                    v.splice(i..i, o[a..b].iter().copied());
                }
            }
            5 if !v.is_empty() => {
                // repeat a slice (deep nesting, long lists)
                let a = rng.gen_range(0..v.len());
                let b = (a + rng.gen_range(1..8)).min(v.len());
                let piece = v[a..b].to_vec();
                for _ in 0..rng.gen_range(1..200) {
                    v.splice(a..a, piece.iter().copied());
                }
            }
            _ => {
                let i = rng.gen_range(0..=v.len());
                let special: &[u8] = &[
                    0, 0xff, 0xfe, 0xfb, 0xfc, 0xfd, b'(', b')', b'\'', b'`', b'"', b'\\', b';',
                ];
                v.insert(i, special[rng.gen_range(0..special.len())]);
            }
        }
    }
    v
}

fn run(target: &str, f: fn(&[u8])) {
    let secs: u64 = std::env::var("STRATA_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let iters: u64 = std::env::var("STRATA_FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(u64::MAX);
    let seed: u64 = std::env::var("STRATA_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random);
    let corpus = seeds(target);
    for s in &corpus {
        f(s);
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let start = Instant::now();
    let mut n = 0u64;
    while n < iters && start.elapsed() < Duration::from_secs(secs) {
        let input = mutate(&mut rng, &corpus);
        let r = std::panic::catch_unwind(|| f(&input));
        if r.is_err() {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("target/fuzz-crash-{target}-{n}"));
            let _ = std::fs::create_dir_all(path.parent().unwrap());
            let _ = std::fs::write(&path, &input);
            panic!(
                "{target}: crash on input #{n} (seed {seed}), saved to {}: {}",
                path.display(),
                input.iter().map(|b| format!("{b:02x}")).collect::<String>()
            );
        }
        n += 1;
    }
    eprintln!(
        "{target}: {} seeds + {n} random inputs in {:?} (seed {seed})",
        corpus.len(),
        start.elapsed()
    );
}

#[test]
fn sql_parser() {
    run("sql_parser", strata_fuzz::sql_parser);
}

#[test]
fn packet_decoder() {
    run("packet_decoder", strata_fuzz::packet_decoder);
}

#[test]
fn codecs() {
    run("codecs", strata_fuzz::codecs);
}
