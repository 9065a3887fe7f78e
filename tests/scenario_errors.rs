//! Malformed scenarios: each must fail to load with the exact position, a
//! message naming the key, and what was expected or a hint. Positions are
//! counted by hand from the text (lines and columns from 1).

use proptest::prelude::*;
use warpstep::scenario::{LoadError, Origin, Scenario};

fn load_err(text: &str) -> LoadError {
    match Scenario::from_text(text, Origin::Builtin("case".into())) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e,
    }
}

/// Asserts position and that the rendered text contains every `needle`.
fn expect_at(text: &str, line: u32, column: u32, needles: &[&str]) -> LoadError {
    let err = load_err(text);
    let shown = err.to_string();
    assert_eq!(
        (err.line, err.column),
        (line, column),
        "wrong position for:\n{shown}"
    );
    assert!(
        shown.starts_with("error: "),
        "rendering starts with `error:`:\n{shown}"
    );
    assert!(
        shown.contains(&format!("builtin:case:{line}:{column}")),
        "rendering names file:line:column:\n{shown}"
    );
    for needle in needles {
        assert!(shown.contains(needle), "missing {needle:?} in:\n{shown}");
    }
    err
}

#[test]
fn unknown_top_level_key() {
    let err = expect_at(
        "name: t\nwarp_width: 32\nprogram: EXIT\n",
        2,
        1,
        &[
            "unknown key `warp_width`",
            "= expected: one of version, name, description, machine",
            "= hint: `warp_width` belongs under `machine:`",
        ],
    );
    assert_eq!(err.key.as_deref(), Some("warp_width"));
    assert_eq!(err.len, 10);
}

#[test]
fn unknown_nested_key_with_did_you_mean() {
    let err = expect_at(
        "name: t\nmachine:\n  warp_widht: 32\nprogram: EXIT\n",
        3,
        3,
        &[
            "unknown key `warp_widht` in `machine`",
            " 3 |   warp_widht: 32\n   |   ^^^^^^^^^^",
            "= expected: one of warp_width, convergence, taken_first",
            "= hint: did you mean `warp_width`?",
        ],
    );
    assert_eq!(err.key.as_deref(), Some("machine.warp_widht"));
}

#[test]
fn unknown_key_two_levels_down() {
    expect_at(
        "name: t\nmachine:\n  latency:\n    alus: 4\nprogram: EXIT\n",
        4,
        5,
        &[
            "unknown key `alus` in `machine.latency`",
            "did you mean `alu`?",
        ],
    );
}

#[test]
fn unknown_key_in_a_flow_mapping_buffer() {
    // `  out: {type: f32, lenn: 4}`: `lenn` starts at column 20.
    expect_at(
        "name: t\nmemory:\n  out: {type: f32, lenn: 4}\nprogram: EXIT\n",
        3,
        20,
        &["unknown key `lenn` in `memory.out`", "did you mean `len`?"],
    );
}

#[test]
fn wrong_type_for_a_number() {
    // `  warp_width: wide`: the value starts at column 15.
    expect_at(
        "name: t\nmachine:\n  warp_width: wide\nprogram: EXIT\n",
        3,
        15,
        &[
            "`machine.warp_width` must be an integer, found a string",
            "= expected: an integer from 1 to 64",
        ],
    );
}

#[test]
fn wrong_type_for_a_section() {
    expect_at(
        "name: t\nmachine: 5\nprogram: EXIT\n",
        2,
        10,
        &["`machine` has the wrong type", "= expected: a mapping"],
    );
}

#[test]
fn warp_width_out_of_range() {
    let err = expect_at(
        "name: t\nmachine: {warp_width: 65}\nprogram: EXIT\n",
        2,
        23,
        &[
            "`machine.warp_width` is 65, out of range",
            "= expected: an integer from 1 to 64",
            "= hint: 32 is an NVIDIA warp",
        ],
    );
    assert_eq!(err.key.as_deref(), Some("machine.warp_width"));
}

#[test]
fn bad_enum_value() {
    expect_at(
        "name: t\nmachine:\n  convergence: stak\nprogram: EXIT\n",
        3,
        16,
        &[
            "`machine.convergence` cannot be `stak`",
            "= expected: one of stack, its",
            "= hint: did you mean `stack`?",
        ],
    );
    expect_at(
        "name: t\nmachine:\n  policy: GTO\nprogram: EXIT\n",
        3,
        11,
        &["`machine.policy` cannot be `GTO`", "did you mean `gto`?"],
    );
}

#[test]
fn threads_and_blocks_together() {
    expect_at(
        "name: t\nlaunch:\n  threads: 64\n  blocks: 2\n  block_dim: 32\nprogram: EXIT\n",
        3,
        12,
        &[
            "`launch.threads` cannot be combined with `blocks` or `block_dim`",
            "= expected: either `threads`, or `blocks` and `block_dim`",
        ],
    );
}

#[test]
fn missing_name() {
    expect_at(
        "launch: {threads: 32}\nprogram: EXIT\n",
        1,
        1,
        &["missing `name`", "= expected: a one-line name"],
    );
}

#[test]
fn missing_program() {
    expect_at(
        "name: t\nlaunch: {threads: 32}\n",
        1,
        1,
        &[
            "missing `program`",
            "= hint: every scenario needs `name:` and `program:`",
        ],
    );
}

#[test]
fn multi_line_name() {
    // A block scalar's position is its first content line.
    expect_at(
        "name: |\n  first\n  second\nprogram: EXIT\n",
        2,
        3,
        &[
            "`name` must be one line",
            "= hint: put longer text in `description:`",
        ],
    );
}

#[test]
fn name_that_is_a_number() {
    expect_at(
        "name: 42\nprogram: EXIT\n",
        1,
        7,
        &[
            "`name` must be a string, found an integer",
            "put it in quotes",
        ],
    );
}

#[test]
fn bad_expression_syntax() {
    // `  R1: "tid +"`: the quote is column 7, `t` column 8, the end column 13.
    let err = expect_at(
        "name: t\ninputs:\n  R1: \"tid +\"\nprogram: EXIT\n",
        3,
        13,
        &[
            "the expression ends where a value was expected in `inputs.R1`",
            "= expected: a number, a name or `(`",
        ],
    );
    assert_eq!(err.key.as_deref(), Some("inputs.R1"));
}

#[test]
fn unclosed_parenthesis_in_init() {
    // `    init: "(i + 1"` : content starts at column 12; end of text at 18.
    expect_at(
        "name: t\nmemory:\n  a:\n    type: u32\n    len: 4\n    init: \"(i + 1\"\nprogram: EXIT\n",
        6,
        18,
        &[
            "unclosed `(` in `memory.a.init`",
            "the `(` at offset 0 is not closed",
        ],
    );
}

#[test]
fn unknown_identifier_in_expression() {
    // Plain scalar `tdi % 2` starts at column 7.
    expect_at(
        "name: t\ninputs:\n  R1: tdi % 2\nprogram: EXIT\n",
        3,
        7,
        &[
            "unknown name `tdi` in `inputs.R1`",
            "   |       ^^^",
            "= hint: did you mean `tid`?",
        ],
    );
}

#[test]
fn unknown_buffer_name() {
    expect_at(
        "name: t\nmemory:\n  data: {type: u32, len: 64}\ninputs:\n  R4: \"dta + 4 * tid\"\nprogram: EXIT\n",
        5,
        8,
        &[
            "unknown name `dta` in `inputs.R4`",
            "= hint: did you mean `data`?",
        ],
    );
}

#[test]
fn thread_variable_in_buffer_init() {
    expect_at(
        "name: t\nmemory:\n  a: {type: u32, len: 4, init: \"tid\"}\nprogram: EXIT\n",
        3,
        33,
        &[
            "`tid` is not available in a buffer init in `memory.a.init`",
            "thread coordinates are known only in `inputs`",
        ],
    );
}

#[test]
fn rz_as_input() {
    let err = expect_at(
        "name: t\ninputs:\n  RZ: 5\nprogram: EXIT\n",
        3,
        3,
        &[
            "`RZ` always reads zero",
            "= expected: a register R0..R254 or a predicate P0..P6",
            "= hint: pick another register",
        ],
    );
    assert_eq!(err.key.as_deref(), Some("inputs.RZ"));
    expect_at(
        "name: t\ninputs:\n  r1: 5\nprogram: EXIT\n",
        3,
        3,
        &["`r1` is not a register or predicate", "did you mean `R1`?"],
    );
    expect_at(
        "name: t\ninputs:\n  P7: true\nprogram: EXIT\n",
        3,
        3,
        &["`P7` is always true"],
    );
}

#[test]
fn input_list_longer_than_threads() {
    // The fifth value (column 20) is the first with no thread.
    expect_at(
        "name: t\nlaunch: {threads: 4}\ninputs:\n  R2: [1, 2, 3, 4, 5]\nprogram: EXIT\n",
        4,
        20,
        &[
            "`inputs.R2` lists 5 values but the launch has 4 threads",
            "= expected: at most 4 values, one per thread",
            "shorter list repeats",
        ],
    );
}

#[test]
fn init_list_length_mismatch() {
    expect_at(
        "name: t\nmemory:\n  a:\n    type: u32\n    len: 4\n    init: [1, 2, 3]\nprogram: EXIT\n",
        5,
        10,
        &[
            "`len` is 4 but `init` lists 3 values",
            "= expected: len: 3, or 4 values in `init`",
        ],
    );
}

#[test]
fn float_in_u32_buffer() {
    let err = expect_at(
        "name: t\nmemory:\n  a: {type: u32, init: [1, 2.5]}\nprogram: EXIT\n",
        3,
        28,
        &[
            "buffer `a` is u32: a float (2.5) in an integer buffer",
            "= hint: use `type: f32` for float data",
        ],
    );
    assert_eq!(err.key.as_deref(), Some("memory.a.init"));
    // The same through an expression points at the whole expression.
    expect_at(
        "name: t\nmemory:\n  a: {type: i32, len: 2, init: \"i / 2.0\"}\nprogram: EXIT\n",
        3,
        33,
        &["in `memory.a.init` for element i = 0", "use `type: f32`"],
    );
}

#[test]
fn buffer_without_type() {
    expect_at(
        "name: t\nmemory:\n  a: {len: 4}\nprogram: EXIT\n",
        3,
        3,
        &[
            "buffer `a` needs a `type`",
            "= expected: `type:` one of u8, i8, u16, i16, u32, i32, u64, i64, f32, f64",
        ],
    );
}

#[test]
fn constant_offset_not_multiple_of_4() {
    expect_at(
        "name: t\nconstants:\n  0x162: 5\nprogram: EXIT\n",
        3,
        3,
        &[
            "constant offset 0x162 in `constants` is not a multiple of 4",
            "try 0x160 or 0x164",
        ],
    );
}

#[test]
fn duplicate_constant_offset() {
    // 0x160 and 352 are the same integer key.
    expect_at(
        "name: t\nconstants:\n  0x160: 1\n  352: 2\nprogram: EXIT\n",
        4,
        3,
        &["duplicate key `352`", "remove one"],
    );
}

#[test]
fn block_too_big_for_the_sm() {
    // 100 threads of 32 lanes need 4 warps; the SM holds 2.
    expect_at(
        "name: t\nmachine: {max_warps_per_sm: 2}\nlaunch: {threads: 100}\nprogram: EXIT\n",
        3,
        19,
        &[
            "`launch.threads` too large: a block of 100 threads needs 4 warps of 32, but an SM holds 2",
            "= expected: at most 64 threads per block",
            "raise `machine.max_warps_per_sm`",
        ],
    );
}

#[test]
fn grid_too_large() {
    expect_at(
        "name: t\nlaunch: {blocks: 1073741824, block_dim: 2}\nprogram: EXIT\n",
        2,
        18,
        &[
            "the grid has 2147483648 threads",
            "at most 1073741824 threads",
        ],
    );
}

#[test]
fn bad_version() {
    expect_at(
        "version: 2\nname: t\nprogram: EXIT\n",
        1,
        10,
        &["unsupported `version: 2`", "= expected: 1"],
    );
}

#[test]
fn yaml_syntax_error() {
    // The parser notices the unclosed `{` at the next key's colon.
    let err = expect_at(
        "name: t\nmachine: {warp_width: 32\nprogram: EXIT\n",
        3,
        8,
        &["invalid YAML: while parsing a flow mapping, did not find expected ',' or '}'"],
    );
    assert!(err.hint.is_some());
}

#[test]
fn empty_file() {
    let err = expect_at(
        "",
        1,
        1,
        &[
            "the scenario is empty",
            "= expected: at least `name:` and `program:`",
        ],
    );
    assert_eq!(err.key, None);
    expect_at("# just a comment\n\n", 1, 1, &["the scenario is empty"]);
}

#[test]
fn file_that_does_not_exist() {
    let path = std::path::Path::new("/nonexistent/warpstep/missing.yaml");
    let err = Scenario::from_file(path).unwrap_err();
    assert_eq!((err.line, err.column), (0, 0));
    assert_eq!(err.file, "/nonexistent/warpstep/missing.yaml");
    let shown = err.to_string();
    assert!(
        shown.starts_with("error: cannot read `/nonexistent/warpstep/missing.yaml`: "),
        "{shown}"
    );
    assert!(
        shown.contains("  --> /nonexistent/warpstep/missing.yaml"),
        "{shown}"
    );
    assert!(shown.contains("os error"), "{shown}");
}

#[test]
fn division_by_zero_for_one_thread() {
    // `  R1: "100 / (tid - 5)"`: content at column 8, `/` at column 12.
    let err = expect_at(
        "name: t\nlaunch: {threads: 8}\ninputs:\n  R1: \"100 / (tid - 5)\"\nprogram: EXIT\n",
        4,
        12,
        &[
            "division by zero in `inputs.R1` for thread 5 (block 0, warp 0, lane 5)",
            "= hint: guard the divisor",
        ],
    );
    assert_eq!(err.len, 1);
}

#[test]
fn bad_expect_key_and_range() {
    expect_at(
        "name: t\nprogram: EXIT\nexpect:\n  warps..issued: 3\n",
        4,
        3,
        &["`warps..issued` is not a report key", "dotted report path"],
    );
    expect_at(
        "name: t\nprogram: EXIT\nexpect:\n  cycles: {mn: 3}\n",
        4,
        12,
        &["unknown key `mn` in `expect.cycles`", "did you mean `min`?"],
    );
    expect_at(
        "name: t\nprogram: EXIT\nexpect:\n  cycles: {min: 5, max: 3}\n",
        4,
        11,
        &["`expect.cycles` has min 5 above max 3"],
    );
}

#[test]
fn memory_over_512_mib() {
    // `a` alone is exactly 512 MiB (2^27 words); `b` ends past the limit.
    expect_at(
        "name: t\nmemory:\n  a: {type: u32, len: 134217728}\n  b: {type: u32, len: 1}\nprogram: EXIT\n",
        4,
        3,
        &["buffer `b` ends 512 MiB into global memory, past the 512 MiB limit"],
    );
}

#[test]
fn deeply_nested_yaml_is_an_error_not_a_crash() {
    let text = format!(
        "name: t\ninputs: {{R1: {}1{}}}\nprogram: EXIT\n",
        "[".repeat(5000),
        "]".repeat(5000)
    );
    let err = load_err(&text);
    assert_eq!(err.line, 2);
    assert!(err.message.starts_with("invalid YAML"), "{}", err.message);
}

#[test]
fn reserved_buffer_name() {
    expect_at(
        "name: t\nmemory:\n  tid: {type: u32, len: 1}\nprogram: EXIT\n",
        3,
        3,
        &["`tid` is a reserved name", "rename it"],
    );
}

#[test]
fn rendered_source_line_hides_control_characters() {
    let err = load_err("name: t\nmachine: {warp_width: \"\u{1b}[2J\"}\nprogram: EXIT\n");
    let shown = err.to_string();
    assert!(!shown.contains('\u{1b}'), "{shown:?}");
}

/// A valid scenario touching every section, for the mutation property.
const VALID: &str = "version: 1
name: mutate me
machine:
  warp_width: 8
  latency: {alu: 4, global: 100}
launch: {blocks: 2, block_dim: 16}
constants:
  0x160: \"out + ntid\"
memory:
  data: {type: f32, len: 64, init: \"rand(3)\"}
  out: {type: u32, init: [1, 2, 3]}
inputs:
  R1: \"tid % 3 == 0 ? 1 : 100 / (tid + 1)\"
  R2: [5, 1]
  P0: \"lane < 4\"
program: |
  ISETP.LT.AND P0, PT, R1, 1, PT
  EXIT
expect:
  cycles: {max: 100}
";

#[test]
fn valid_mutation_base_loads() {
    let s = Scenario::from_text(VALID, Origin::Builtin("valid".into())).unwrap();
    assert_eq!(s.launch.threads(), 32);
}

/// Characters a mutation may insert: YAML punctuation, digits, letters.
const ALPHABET: &[u8] = b" :-[]{}\"'#|>&*!,.0123456789xRPtz\n\t\\%?";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}") {
        let _ = Scenario::from_text(&text, Origin::Builtin("fuzz".into()));
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let text = String::from_utf8_lossy(&bytes);
        if let Err(e) = Scenario::from_text(&text, Origin::Builtin("fuzz".into())) {
            let _ = e.to_string();
        }
    }

    #[test]
    fn mutated_scenarios_never_panic(
        edits in proptest::collection::vec((0usize..2000, 0usize..ALPHABET.len(), 0u8..3), 1..6)
    ) {
        let mut text: Vec<u8> = VALID.as_bytes().to_vec();
        for (at, ch, kind) in edits {
            let at = at % (text.len() + 1);
            match kind {
                0 => text.insert(at, ALPHABET[ch]),
                1 if at < text.len() => { text.remove(at); }
                _ if at < text.len() => text[at] = ALPHABET[ch],
                _ => {}
            }
        }
        let text = String::from_utf8_lossy(&text);
        if let Err(e) = Scenario::from_text(&text, Origin::Builtin("fuzz".into())) {
            let shown = e.to_string();
            prop_assert!(shown.starts_with("error: "));
        }
    }
}

#[test]
fn unindented_label_ends_the_program_block() {
    // `loop:` at column 1 is a new top-level key, not a program label.
    expect_at(
        "name: t\nprogram: |\n  NOP\nloop:\n  EXIT\n",
        4,
        1,
        &["unknown key `loop`", "indent it like the instructions"],
    );
}

#[test]
fn buffer_name_yaml_reads_as_a_boolean() {
    expect_at(
        "name: t\nmemory:\n  y: {type: u32, len: 4}\nprogram: EXIT\n",
        3,
        3,
        &[
            "a buffer name must be a name",
            "YAML reads `y` as a boolean",
            "quote it",
        ],
    );
}

#[test]
fn max_cycles_above_its_budget() {
    // The budget is 10^10 (README, Budgets): one more is refused at its
    // value, line 2 column 23 by hand; the budget itself loads.
    expect_at(
        "name: t\nmachine: {max_cycles: 10000000001}\nprogram: EXIT\n",
        2,
        23,
        &[
            "`machine.max_cycles` is 10000000001, out of range",
            "= expected: an integer from 1 to 10000000000",
            "Budgets in the README",
        ],
    );
    expect_at(
        "name: t\nmachine: {max_cycles: 18446744073709551615}\nprogram: EXIT\n",
        2,
        23,
        &["`machine.max_cycles` is 18446744073709551615"],
    );
    let ok = Scenario::from_text(
        "name: t\nmachine: {max_cycles: 10000000000}\nprogram: EXIT\n",
        Origin::Builtin("case".into()),
    );
    assert!(ok.is_ok(), "{:?}", ok.err().map(|e| e.to_string()));
}

#[test]
fn shifts_out_of_range_and_an_overflowing_division_are_refused() {
    // `  R1: "1 << 99999"`: content at column 8, `<<` at column 10.
    expect_at(
        "name: t\nlaunch: {threads: 8}\ninputs:\n  R1: \"1 << 99999\"\nprogram: EXIT\n",
        4,
        10,
        &["`<<` shifts by an amount outside 0 to 63", "0 to 63 bits"],
    );
    // `  R1: "-9223372036854775808 / -1"`: `/` at column 8 + 21 = 29.
    expect_at(
        "name: t\nlaunch: {threads: 8}\ninputs:\n  R1: \"-9223372036854775808 / -1\"\nprogram: EXIT\n",
        4,
        29,
        &["overflows: 2^63 does not fit a 64-bit integer"],
    );
}

#[test]
fn a_nan_value_says_what_is_expected() {
    // `launch: {threads: .nan}`: `.nan` at column 19, counted by hand.
    expect_at(
        "name: t\nlaunch: {threads: .nan}\nprogram: EXIT\n",
        2,
        19,
        &[
            "`.nan` is not a finite number",
            "= hint: expected a finite number here, like `0`, `1.5`",
        ],
    );
}
