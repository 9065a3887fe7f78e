//! Recording and replaying stepping sessions as asciicast v2 files.

/// `warpstep record`.
pub fn record_command(
    scenario: &str,
    output: &str,
    keys: Option<&str>,
    size: &str,
    ascii: bool,
) -> color_eyre::Result<i32> {
    let _ = (scenario, output, keys, size, ascii);
    Err(color_eyre::eyre::eyre!(
        "recording is not available in this build yet"
    ))
}

/// `warpstep replay`.
pub fn replay_command(file: &str, speed: f64, ascii: bool) -> color_eyre::Result<i32> {
    let _ = (file, speed, ascii);
    Err(color_eyre::eyre::eyre!(
        "replay is not available in this build yet"
    ))
}
