use clap::Parser;

fn main() {
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
        Err(e) => {
            eprintln!("{}", warpstep::text::escape_lines(&error_text(&e)));
            std::process::exit(e.exit_code());
        }
    }
}

/// The error as one line for stderr. What the user gave cannot be used
/// (exit 2): the message is the whole diagnosis, printed as it is. The
/// terminal or a file failed (exit 1): `error: ` and the message, then each
/// cause after a colon, as `cannot create `x.cast`: No such file or
/// directory (os error 2)`.
fn error_text(e: &warpstep::cli::CliError) -> String {
    let text = e.to_string();
    if e.exit_code() == 2 {
        return text;
    }
    let mut line = if text.starts_with("error: ") {
        text
    } else {
        format!("error: {text}")
    };
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        let c_text = c.to_string();
        // A transparent wrapper repeats its inner error's message.
        if !line.ends_with(&c_text) {
            line.push_str(": ");
            line.push_str(&c_text);
        }
        cause = c.source();
    }
    line
}
