//! The headless report.
