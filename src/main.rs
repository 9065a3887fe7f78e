use clap::Parser;

fn main() -> color_eyre::Result<()> {
    color_eyre::install()?;
    let cli = warpstep::cli::Cli::parse();
    match warpstep::cli::dispatch(cli) {
        Ok(code) => std::process::exit(code),
        // What the user gave cannot be used: the message is the whole
        // diagnosis, printed as it is.
        Err(e) if e.exit_code() == 2 => {
            eprintln!("{e}");
            std::process::exit(2);
        }
        // The terminal or a file failed: color-eyre shows the causes.
        Err(e) => Err(e.into()),
    }
}
