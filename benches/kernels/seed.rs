//! The seed kernel's benchmark scenario, shared by the `engine` and `jobs`
//! benches.

use warpstep::scenario::{Origin, Scenario};

/// The committed `cuobjdump -sass` listing of the seed kernel for sm_90.
const SEED_SM_90: &str = include_str!("../../tests/kernels/seed.sm_90.sass");

/// The seed kernel over n = 1,000,003, loaded unedited: half the elements
/// above 0.5, so the compiler's predicated if/else splits every warp
/// 16/16. `machine` is the scenario's `machine:` line, or empty.
pub fn seed_scenario(machine: &str) -> Scenario {
    let mut text = format!(
        "name: bench seed sm_90\n\
         {machine}\
         launch: {{blocks: 3907, block_dim: 256}}\n\
         memory:\n  data: {{type: f32, len: 1000003, init: \"0.25 + 0.5 * (i % 2)\"}}\n\
         args: [data, 1000003]\n\
         program: |\n",
    );
    for line in SEED_SM_90.lines() {
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
    match Scenario::from_text(&text, Origin::Builtin("bench".into())) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}
