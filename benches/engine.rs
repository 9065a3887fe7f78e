//! Headless engine throughput (placeholder until the benchmark lands).
fn main() {}
