//! `strata`: start the server (`strata serve`, the default) with an embedded default data
//! directory `./strata-data`, port 3306, bind address 127.0.0.1.

use clap::Parser;
use server::{Cli, Command, Config};

// jemalloc instead of glibc malloc: many threads allocate small rows, keys and tokens at a high
// rate (reference notes §4.2: +15 % for MySQL; glibc's free lists and consolidation showed
// as ~15 % of a bulk-insert profile).
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() {
    let cli = Cli::parse();
    let args = match cli.command {
        Some(Command::Serve(a)) => a,
        None => cli.serve,
    };
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("STRATA_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let cfg = match Config::from_args(&args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("strata: error: {e}");
            std::process::exit(1);
        }
    };
    let running = match server::start(&cfg) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("strata: error: {e}");
            std::process::exit(1);
        }
    };
    eprintln!(
        "strata: ready for connections on {} (version {}); data directory {}{}",
        running.handle.local_addr(),
        sql::runtime::sysvars::SERVER_VERSION,
        cfg.datadir.display(),
        cfg.socket
            .as_ref()
            .map(|s| format!("; socket {}", s.display()))
            .unwrap_or_default()
    );
    running.handle.wait();
}
