use clap::Parser;

fn main() -> color_eyre::Result<()> {
    color_eyre::install()?;
    let cli = warpstep::cli::Cli::parse();
    let result = warpstep::cli::dispatch(cli);
    // A signal ended the stepper: the terminal is restored, and the status
    // says which signal (143 SIGTERM, 130 SIGINT, 129 SIGHUP), whatever the
    // loop returned on its way out; nothing more is printed, as the
    // terminal may be gone.
    if let Some(status) = warpstep::tui::signal_exit_status() {
        std::process::exit(status);
    }
    match result {
        Ok(code) => std::process::exit(code),
        // What the user gave cannot be used: the message is the whole
        // diagnosis, printed as it is.
        Err(e) if e.exit_code() == 2 => {
            eprintln!("{}", warpstep::text::escape_lines(&e.to_string()));
            std::process::exit(2);
        }
        // The terminal or a file failed: color-eyre shows the causes.
        Err(e) => Err(e.into()),
    }
}
