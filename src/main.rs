use clap::Parser;

fn main() -> color_eyre::Result<()> {
    color_eyre::install()?;
    let cli = warpstep::cli::Cli::parse();
    let code = warpstep::cli::dispatch(cli)?;
    std::process::exit(code);
}
